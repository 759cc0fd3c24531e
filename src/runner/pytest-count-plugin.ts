/**
 * The files benchbot writes where the benchmarks run to count a
 * pytest-benchmark suite under callgrind (valgrind-count.ts writes them
 * into its count directory, as it writes Go's exec wrapper, so the ssh and
 * device executors need nothing copied).
 *
 * pytest-benchmark chooses its rounds and iterations by the clock
 * (calibration, `--benchmark-max-time`), so its schedule cannot be fixed
 * from outside. The plugin replaces it for the benchmarks selected: each
 * benchmark's function is called once to warm up (caches, imports, lazy
 * set-up done on the first call), then N times from inside one C function,
 * `benchbot_counted`, which turns callgrind's collection on around them and
 * dumps a profile after (client requests, {@link PYTEST_COUNT_C}): the
 * count is exactly those N calls, and one pytest process counts a whole
 * batch of benchmarks, one profile file each. `benchmark.pedantic` with a
 * `setup` or `teardown` runs them in `benchbot_uncounted`, which turns
 * collection off again inside. The cyclic garbage collector is emptied before each
 * benchmark (`gc.collect()`), so its next run does not depend on what ran
 * before, and stays on as in the wall-time rounds (off with
 * `--benchmark-disable-gc` or the marker's `disable_gc`, as there).
 * pytest-codspeed measures the same way (the function called inside
 * callgrind's instrumentation by client requests, the collector emptied
 * first), with one call instead of N.
 *
 * The plugin reads its settings from the environment: BENCHBOT_PYTEST_LIB
 * (the compiled C file), BENCHBOT_PYTEST_SELECT (a file, one benchmark
 * name a line: pytest node ids, or test names when the JSON had no
 * `fullname`), BENCHBOT_PYTEST_ITERATIONS, and BENCHBOT_PYTEST_OUT, the
 * file it appends one JSON line to per benchmark counted (`name`, `pid`,
 * `dump`: the how-manieth dump of that process holds it, `iterations`), per
 * selected test that failed or was skipped, and `{"done": pid}` at the end.
 * Python 3.6 and later, pytest-benchmark 3.1 and later (`_raw`,
 * `_raw_pedantic`).
 */
export const PYTEST_COUNT_PLUGIN = String.raw`"""benchbot: counts a pytest-benchmark suite under callgrind with a fixed schedule.

Written by benchbot where the benchmarks run and loaded by -p in PYTEST_ADDOPTS
while it counts instructions (docs/instructions.md); nothing in the project
changes. Each selected benchmark: one warm-up call, then N calls inside the C
function benchbot_counted, which callgrind counts and dumps a profile after.
"""
import ctypes
import gc
import json
import os

_ITERATIONS = int(os.environ.get("BENCHBOT_PYTEST_ITERATIONS", "1"))
_OUT = os.environ.get("BENCHBOT_PYTEST_OUT")
_selected = set()
_dumps = 0
_instrumenting = False
_left = 0
_lib = None
_Work = ctypes.CFUNCTYPE(None)


def _fixed_commit_info(project_name=None):
    return {"id": "benchbot", "time": None, "author_time": None, "dirty": False, "project": project_name or "benchbot", "branch": "benchbot"}


def _same_tag_on_both_sides():
    # pytest-benchmark asks git for the commit (id, dates, branch) and the clock
    # while it adds its options, before any test: strings that differ between
    # the sides and from second to second, allocated in the heap the counted
    # calls run in, move CPython's layout and so its counts. This module is
    # loaded by -p (PYTEST_ADDOPTS), before pytest-benchmark's own plugin, so
    # its get_tag sees these. Counting runs save no JSON of their own.
    if os.environ.get("BENCHBOT_PYTEST_SELECT") is None:
        return
    try:
        import pytest_benchmark.utils as utils
    except ImportError:
        return  # pytest_configure records why
    utils.get_commit_info = _fixed_commit_info
    utils.get_current_time = lambda: "00000000_000000"


_same_tag_on_both_sides()


def _record(entry):
    if _OUT is None:
        return
    entry["pid"] = os.getpid()
    with open(_OUT, "a") as out:
        out.write(json.dumps(entry) + "\n")


def _run_in(c_function, work):
    # An exception cannot cross the C frame: it is kept and raised again after it.
    failure = []

    def body():
        try:
            work()
        except BaseException as error:  # noqa: B036 - re-raised below
            failure.append(error)

    c_function(_Work(body))
    if failure:
        raise failure[0]


def _uncounted(work):
    _run_in(_lib.benchbot_uncounted, work)


def _counted(fixture, loop):
    global _dumps, _left
    gc.collect()
    was_enabled = gc.isenabled()
    if getattr(fixture, "_disable_gc", False):
        gc.disable()
    failed = True
    try:
        _run_in(_lib.benchbot_counted, loop)
        failed = False
    finally:
        _dumps += 1
        if was_enabled:
            gc.enable()
        _record({"name": _name_of(fixture), "dump": _dumps, "iterations": _ITERATIONS, "failed": failed})
        _left -= 1
        if _left == 0:
            # The last benchmark of this process is counted: pytest's teardown and Python's exit run uninstrumented, some 10 times faster.
            _lib.benchbot_instrument(0)


def _name_of(fixture):
    fullname = getattr(fixture, "fullname", None)
    return fullname if fullname in _selected else fixture.name


def _instrumented():
    # Once, before the first warm-up call: from here on callgrind simulates (and so warms its caches); it counts only inside benchbot_counted.
    global _instrumenting
    if not _instrumenting:
        _lib.benchbot_instrument(1)
        _instrumenting = True


def _raw(self, function_to_benchmark, *args, **kwargs):
    _instrumented()
    result = function_to_benchmark(*args, **kwargs)

    def loop():
        for _ in range(_ITERATIONS):
            function_to_benchmark(*args, **kwargs)

    _counted(self, loop)
    return result


def _raw_pedantic(self, target, args=(), kwargs=None, setup=None, teardown=None, rounds=1, warmup_rounds=0, iterations=1):
    if kwargs is None:
        kwargs = {}

    def arguments():
        made = setup() if setup is not None else None
        return made if made else (args, kwargs)

    _instrumented()
    a, k = arguments()
    result = target(*a, **k)
    if teardown is not None:
        teardown(*a, **k)

    if setup is None and teardown is None:
        def loop():
            for _ in range(_ITERATIONS):
                target(*args, **kwargs)
    else:
        def loop():
            for _ in range(_ITERATIONS):
                made = []
                _uncounted(lambda: made.append(arguments()))
                a, k = made[0]
                target(*a, **k)
                if teardown is not None:
                    _uncounted(lambda: teardown(*a, **k))

    _counted(self, loop)
    return result


def pytest_configure(config):
    global _lib
    select = os.environ.get("BENCHBOT_PYTEST_SELECT")
    if select is None:
        return
    with open(select) as names:
        _selected.update(line.rstrip("\n") for line in names if line.strip())
    try:
        from pytest_benchmark.fixture import BenchmarkFixture
    except ImportError as error:
        _record({"error": "pytest-benchmark cannot be imported by the Python that runs pytest: %s" % error})
        return
    if not hasattr(BenchmarkFixture, "_raw") or not hasattr(BenchmarkFixture, "_raw_pedantic"):
        _record({"error": "this pytest-benchmark has no BenchmarkFixture._raw/_raw_pedantic (benchbot counts 3.1 and later)"})
        return
    _lib = ctypes.PyDLL(os.environ["BENCHBOT_PYTEST_LIB"])
    for name in ("benchbot_counted", "benchbot_uncounted"):
        getattr(_lib, name).argtypes = [_Work]
        getattr(_lib, name).restype = None
    _lib.benchbot_instrument.argtypes = [ctypes.c_int]
    _lib.benchbot_instrument.restype = None
    BenchmarkFixture._raw = _raw
    BenchmarkFixture._raw_pedantic = _raw_pedantic


def pytest_collection_modifyitems(config, items):
    if not _selected:
        return
    global _left
    keep = [item for item in items if item.nodeid in _selected or item.name in _selected]
    _left = len(keep)
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


def pytest_runtest_logreport(report):
    if not _selected or report.passed or (report.when != "call" and not report.failed and not report.skipped):
        return
    name = report.nodeid if report.nodeid in _selected else report.nodeid.rsplit("::", 1)[-1]
    text = report.longreprtext if hasattr(report, "longreprtext") else str(report.longrepr)
    lines = [line for line in text.splitlines() if line.strip()]
    _record({"name": name, "outcome": report.outcome, "when": report.when, "message": (lines[-1] if lines else "")[:300]})


def pytest_sessionfinish(session, exitstatus):
    if _selected:
        _record({"done": True, "exitstatus": int(exitstatus)})
`;

/**
 * PYTEST_COUNT_C is the C file the plugin calls a benchmark's work
 * through. It speaks to callgrind by client requests (valgrind's
 * callgrind.h): collection is toggled on around the work and a profile
 * dumped after it; `benchbot_uncounted` toggles it off again inside;
 * `benchbot_instrument` starts the instrumentation that valgrind was told
 * to leave off until then (`--instr-atstart=no`: Python's start, pytest's
 * and the suite's imports and collection run some 10 times faster
 * uninstrumented), and stops it after the last benchmark of the process. A `--toggle-collect` on the function's name would need
 * no header, but callgrind 3.19 never saw the function entered when ctypes
 * called it (measured: 0 instructions, while the same library called from
 * C counted).
 */
export const PYTEST_COUNT_C = `/* benchbot: what callgrind counts of a pytest-benchmark benchmark (docs/instructions.md). */
#include <valgrind/callgrind.h>
typedef void (*benchbot_work)(void);
void benchbot_instrument(int on) { if (on) { CALLGRIND_START_INSTRUMENTATION; } else { CALLGRIND_STOP_INSTRUMENTATION; } }
void benchbot_counted(benchbot_work work) { CALLGRIND_TOGGLE_COLLECT; work(); CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("benchbot_counted"); }
void benchbot_uncounted(benchbot_work work) { CALLGRIND_TOGGLE_COLLECT; work(); CALLGRIND_TOGGLE_COLLECT; }
`;

/** PYTEST_COUNT_MODULE is the plugin's module name, as `-p` names it. */
export const PYTEST_COUNT_MODULE = 'benchbot_pytest_count';
