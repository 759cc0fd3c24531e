import { diffProfiles, PROFILE_DIFF_DEFAULTS, ProfileEventError } from '../compare/profile-diff.ts';
import type { ProfileDiff, ProfileTool } from '../model/profile-diff.ts';
import { parseCallgrind } from './callgrind-profile.ts';
import { parsePerfScript } from './perf-script-profile.ts';
import { FormatError } from './format-error.ts';

/**
 * profile-artifact reads the differential profiles a results artifact
 * carries as raw profiler files: `profiles.json` lists, in order, the
 * benchmark, the iterations of each side, the `tool` (callgrind when
 * absent) and the `scope` (`command`: the whole bench command), and the files are `profiles/N.base.callgrind` and
 * `profiles/N.head.callgrind` (perf record's samples, as perf script text:
 * `profiles/N.base.perf.txt`), named by their index and the tool, never by
 * a name from the manifest. The reader (the action's
 * report job, the app) diffs them again, only for the benchmarks its own
 * recomputed comparison finds regressed, with the commits it trusts: the
 * artifact was written by a job that ran the pull request's code.
 */

/** PROFILES_MANIFEST and profileFileName are the artifact's names. */
export const PROFILES_MANIFEST = 'profiles.json';

/** profileFileName is the artifact path of profile `index`'s file of one side, by the tool that made it. */
export function profileFileName(index: number, side: 'base' | 'head', tool: ProfileTool = 'callgrind'): string {
  return `profiles/${index}.${side}.${tool === 'perf' ? 'perf.txt' : 'callgrind'}`;
}

/** MAX_ARTIFACT_PROFILES is the most profiles read from one artifact (a run makes at most five). */
export const MAX_ARTIFACT_PROFILES = 5;

/**
 * ArtifactProfiles are the profiles read, why any could not be, and which
 * manifest entries they came from (so a report job can pass those files on
 * in its own artifact, for the app).
 */
export interface ArtifactProfiles {
  profiles: ProfileDiff[];
  notes: string[];
  used: { benchmark: string; index: number; baseIterations: number; headIterations: number; tool: ProfileTool; scope?: 'command' }[];
}

/**
 * readArtifactProfiles diffs the artifact's profiles of `regressed`
 * benchmarks; `file` returns a file's text (null when the artifact lacks it
 * or it cannot be read). Anything malformed drops that profile with a note.
 */
export function readArtifactProfiles(manifestText: string | null, file: (name: string) => string | null, regressed: ReadonlySet<string>, shas: { base?: string; head?: string }): ArtifactProfiles {
  if (manifestText === null || regressed.size === 0) return { profiles: [], notes: [], used: [] };
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText);
  } catch (error) {
    return { profiles: [], notes: [`${PROFILES_MANIFEST} is not JSON: ${(error as Error).message}`], used: [] };
  }
  if (!Array.isArray(manifest)) return { profiles: [], notes: [`${PROFILES_MANIFEST} is not a list of profiles`], used: [] };
  const profiles: ProfileDiff[] = [];
  const used: ArtifactProfiles['used'] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
  for (const [i, entry] of manifest.slice(0, MAX_ARTIFACT_PROFILES).entries()) {
    const e = entry as { benchmark?: unknown; base_iterations?: unknown; head_iterations?: unknown; tool?: unknown; scope?: unknown } | null;
    if (typeof e?.benchmark !== 'string' || e.benchmark.length > 4096 || !count(e.base_iterations) || !count(e.head_iterations) || !(e.tool === undefined || e.tool === 'callgrind' || e.tool === 'perf') || !(e.scope === undefined || e.scope === 'command')) {
      notes.push(`${PROFILES_MANIFEST} entry ${i} is malformed: left out`);
      continue;
    }
    if (!regressed.has(e.benchmark) || seen.has(e.benchmark)) continue;
    seen.add(e.benchmark);
    const tool: ProfileTool = e.tool === 'perf' ? 'perf' : 'callgrind';
    try {
      const side = (name: 'base' | 'head', iterations: number, sha: string | undefined) => {
        const path = profileFileName(i, name, tool);
        const text = file(path);
        if (text === null) throw new FormatError(path, undefined, 'missing from the artifact');
        return { profile: tool === 'perf' ? parsePerfScript(text, path) : parseCallgrind(text, path), iterations, ...(sha ? { sha } : {}) };
      };
      profiles.push(diffProfiles(e.benchmark, side('base', e.base_iterations as number, shas.base), side('head', e.head_iterations as number, shas.head), { top: PROFILE_DIFF_DEFAULTS.top, ...(e.scope === 'command' ? { scope: 'command' as const } : {}) }));
      used.push({ benchmark: e.benchmark, index: i, baseIterations: e.base_iterations as number, headIterations: e.head_iterations as number, tool, ...(e.scope === 'command' ? { scope: 'command' as const } : {}) });
    } catch (error) {
      if (!(error instanceof FormatError || error instanceof ProfileEventError)) throw error;
      notes.push(`the profile of ${e.benchmark} cannot be read: ${error.message}`);
    }
  }
  return { profiles, notes, used };
}
