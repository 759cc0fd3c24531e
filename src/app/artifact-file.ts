import { DownloadTooLargeError, type GitHubClient } from '../github/github-client.ts';
import type { Repo } from './handler-deps.ts';
import { MAX_ENTRY_BYTES, readZipTexts, ZipError } from './read-zip.ts';

/**
 * MAX_ARTIFACT_BYTES bounds the zip archive of one artifact the app reads,
 * which it holds in memory while it inflates the files it wants: room for
 * the two sample files at their own cap (MAX_ENTRY_BYTES each) even stored
 * uncompressed, plus the report's other files. upload-artifact deflates, so
 * a real benchbot artifact is far smaller. Default 96 MiB.
 */
export const MAX_ARTIFACT_BYTES = 3 * MAX_ENTRY_BYTES;

/** ArtifactTooLargeError is an artifact over MAX_ARTIFACT_BYTES: refused by its listed size, or cut off while downloading. */
export class ArtifactTooLargeError extends ZipError {
  override name = 'ArtifactTooLargeError';
}

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
 * the run has no such unexpired artifact. A malformed archive throws
 * ZipError; one larger than maxBytes, ArtifactTooLargeError (downloadArtifactZip).
 */
export async function downloadArtifactFiles<F extends string>(client: GitHubClient, where: Repo, runId: number, artifactName: string, files: readonly F[], maxBytes = MAX_ARTIFACT_BYTES): Promise<Record<F, string | null> | null> {
  const zip = await downloadArtifactZip(client, where, runId, artifactName, maxBytes);
  return zip === null ? null : readZipTexts(zip, files);
}

/**
 * downloadArtifactZip downloads a run's artifact by name and returns the zip
 * archive unread (the app inflates a `/bench` report's off its event loop,
 * bench-recompute.ts), or null when the run has no such unexpired artifact.
 * An archive larger than maxBytes throws ArtifactTooLargeError (a ZipError):
 * before the download when the listing says so (size_in_bytes), and when
 * the body runs past it whatever the listing said, since the measuring job
 * that uploaded it ran the code under test.
 */
export async function downloadArtifactZip(client: GitHubClient, where: Repo, runId: number, artifactName: string, maxBytes = MAX_ARTIFACT_BYTES): Promise<Uint8Array | null> {
  const artifacts = await client.paginate<{ id: number; name: string; expired: boolean; size_in_bytes?: number }>('/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { ...where, run_id: runId, name: artifactName });
  // A re-run attempt uploads again; the newest artifact is the one to read.
  const artifact = artifacts.filter((a) => a.name === artifactName && !a.expired).sort((a, b) => b.id - a.id)[0];
  if (artifact === undefined) return null;
  const listed = typeof artifact.size_in_bytes === 'number' && Number.isFinite(artifact.size_in_bytes) && artifact.size_in_bytes >= 0 ? artifact.size_in_bytes : undefined;
  if (listed !== undefined && listed > maxBytes) throw new ArtifactTooLargeError(`artifact ${artifactName} is ${listed} bytes; the app reads artifacts of at most ${maxBytes} bytes, so it was not downloaded`);
  try {
    return await client.download('/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { ...where, artifact_id: artifact.id, archive_format: 'zip' }, { maxBytes, expectedBytes: listed });
  } catch (error) {
    if (error instanceof DownloadTooLargeError) throw new ArtifactTooLargeError(`artifact ${artifactName}, listed at ${listed ?? 'an unknown number of'} bytes, is larger than the ${maxBytes} bytes the app reads: ${error.message}`, { cause: error });
    throw error;
  }
}
