import type { GitHubClient } from '../github/github-client.ts';
import type { Repo } from './handler-deps.ts';
import { readZipEntry } from './read-zip.ts';

/**
 * downloadArtifactFile downloads a workflow run's artifact by name and
 * returns one file of it as text, or null when the run has no such unexpired
 * artifact or the archive lacks the file. A malformed archive throws ZipError.
 */
export async function downloadArtifactFile(client: GitHubClient, where: Repo, runId: number, artifactName: string, file: string): Promise<string | null> {
  const files = await downloadArtifactFiles(client, where, runId, artifactName, [file]);
  return files === null ? null : files[file];
}

/**
 * downloadArtifactFiles downloads a run's artifact by name once and returns
 * the named files as text (null for each the archive lacks), or null when
 * the run has no such unexpired artifact. A malformed archive throws ZipError.
 */
export async function downloadArtifactFiles<F extends string>(client: GitHubClient, where: Repo, runId: number, artifactName: string, files: readonly F[]): Promise<Record<F, string | null> | null> {
  const artifacts = await client.paginate<{ id: number; name: string; expired: boolean }>('/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { ...where, run_id: runId, name: artifactName });
  // A re-run attempt uploads again; the newest artifact is the one to read.
  const artifact = artifacts.filter((a) => a.name === artifactName && !a.expired).sort((a, b) => b.id - a.id)[0];
  if (artifact === undefined) return null;
  const zip = await client.download('/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { ...where, artifact_id: artifact.id, archive_format: 'zip' });
  const decoder = new TextDecoder();
  const out = {} as Record<F, string | null>;
  for (const file of files) {
    const bytes = readZipEntry(zip, file);
    out[file] = bytes === null ? null : decoder.decode(bytes);
  }
  return out;
}
