import { FormatError } from '../formats/format-error.ts';
import { UnknownFormatError } from '../formats/detect.ts';
import { runParse, PARSE_USAGE } from './parse-command.ts';
import { runCompare, COMPARE_USAGE } from './compare-command.ts';
import { InputError, UsageError } from './usage-error.ts';
import { SettingError } from '../jobs/setting-names.ts';
import { runRun, RUN_USAGE } from './run-command.ts';
import { runCalibrate, CALIBRATE_USAGE } from './calibrate-command.ts';
import { runServe, SERVE_USAGE } from './serve-command.ts';
import { runExport, runImport, EXPORT_USAGE, IMPORT_USAGE } from './history-commands.ts';
import { runScan, runAck, SCAN_USAGE, ACK_USAGE } from './scan-command.ts';
import { runDashboard, DASHBOARD_USAGE } from './dashboard-command.ts';
import { runBisect, runBisectOracle, BISECT_USAGE, BISECT_ORACLE_USAGE } from './bisect-command.ts';
import { runClean, CLEAN_USAGE } from './clean-command.ts';
import { runNightlyCommand, NIGHTLY_USAGE } from './nightly-command.ts';
import { runBisectLog, BISECT_LOG_USAGE } from './bisect-log-command.ts';
import { runProfile, PROFILE_USAGE } from './profile-command.ts';
import { RunnerError } from '../runner/git-checkout.ts';
import { redact, scrubError } from '../store/redact.ts';
import { StoreError } from '../store/store.ts';
import { didYouMean } from '../model/closest-name.ts';

const USAGE = `usage: benchbot <command> [options]

commands:
  parse FILE...          show what benchbot reads from benchmark output
  compare BASE HEAD      compare two sets of results and report what changed
  run --base --head      A/B two commits on this machine: build, interleaved rounds, report, store
  calibrate --bench      learn this machine's noise per benchmark (A/A rounds of one commit), for run's advice
  export / import        move history between stores as NDJSON; import github-action-benchmark data.js
  serve                  run the GitHub App: /bench on pull requests, reports, nightly bisect -> issue
  nightly --bench        the nightly job here (cron, systemd, any CI): measure the branch head, confirm, scan, report
  scan                   scan the nightly history for regressions (nightly medians, confirmed by the interleaved A/B)
  ack SERIES --at SHA    mark an expected change: no alert, a new baseline from there
  dashboard --out DIR    write a static site of the history: every series charted, regressions first
  bisect --good --bad    find the merge that caused a regression (statistical oracle, skips broken commits)
  bisect-oracle          one oracle verdict for git bisect run / cargo-bisect-rustc (see bisect/)
  bisect-log FILE        a bisect.json as markdown (the bisect workflow's report job)
  profile --benchmark    where a benchmark's change lives: the functions whose cost changed most, base vs head (callgrind)
  clean                  remove the worktrees (and builds) run and bisect left in .benchbot/worktrees
  help                   this text

Every relative path you type (a --store file, an input, an --output file, --repo) is relative to the
current directory, unless a command's help says otherwise (run's --result-file is relative to the
checkout). The default store is .benchbot/benchbot.db in the current directory for every command;
the commands that only read history (scan, ack, export, dashboard) refuse a store that does not exist.
A threshold (--threshold, --threshold-for) is a percentage: 2% or 2 both mean two percent; below 1 the
% is required (0.5%), since a bare 0.5 could mean 0.5% or 50%.

Run \`benchbot <command> --help\` for a command's options.`

type Command = { usage: string; run: (args: string[], out: (text: string) => void) => number | Promise<number> };

const COMMANDS: Record<string, Command> = {
  parse: { usage: PARSE_USAGE, run: runParse },
  compare: { usage: COMPARE_USAGE, run: runCompare },
  run: { usage: RUN_USAGE, run: runRun },
  calibrate: { usage: CALIBRATE_USAGE, run: runCalibrate },
  export: { usage: EXPORT_USAGE, run: runExport },
  import: { usage: IMPORT_USAGE, run: runImport },
  serve: { usage: SERVE_USAGE, run: runServe },
  nightly: { usage: NIGHTLY_USAGE, run: runNightlyCommand },
  scan: { usage: SCAN_USAGE, run: runScan },
  ack: { usage: ACK_USAGE, run: runAck },
  dashboard: { usage: DASHBOARD_USAGE, run: runDashboard },
  bisect: { usage: BISECT_USAGE, run: runBisect },
  'bisect-oracle': { usage: BISECT_ORACLE_USAGE, run: runBisectOracle },
  clean: { usage: CLEAN_USAGE, run: runClean },
  'bisect-log': { usage: BISECT_LOG_USAGE, run: runBisectLog },
  profile: { usage: PROFILE_USAGE, run: runProfile },
};

/**
 * main runs the benchbot CLI and returns the exit code: 0 success, 1 a
 * regression was found (compare/run/nightly/scan), 2 bad usage or bad input.
 */
export async function main(argv: string[], out = (t: string) => process.stdout.write(t + '\n'), err = (t: string) => process.stderr.write(t + '\n')): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    out(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    err(`benchbot: unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))}\n\n${USAGE}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    out(command.usage);
    return 0;
  }
  try {
    return await command.run(args, out);
  } catch (error) {
    // Messages may quote a --store URL or BENCHBOT_DATABASE_URL: one redaction for all of them.
    if (error instanceof UsageError || error instanceof SettingError) {
      err(`benchbot ${name}: ${redact(error.message)}\n\n${command.usage}`);
      return 2;
    }
    if (error instanceof InputError || error instanceof FormatError || error instanceof UnknownFormatError || error instanceof RunnerError || error instanceof StoreError) {
      err(`benchbot ${name}: ${redact(error.message)}`);
      return 2;
    }
    throw scrubError(error);
  }
}
