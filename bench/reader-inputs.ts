// Generated inputs of a given size for every text reader, shaped like the
// real tools print them (see the fixtures each one imitates), for the reader
// speed table of `npm run bench`. Each is built from repeating blocks with
// varying names and numbers; names repeat every so often, as `-count N` or
// concatenated runs repeat them, so readers also append to known series.

/** ReaderInput is one generated input: the text in the reader's format and the same results as a JSON document. */
export interface ReaderInput {
  text: string;
  /** json holds the same results as the text, as a harness's JSON would (an array of rows), for JSON.parse beside the reader. */
  json: string;
}

/** fill repeats `block(i)` until the text reaches `bytes` characters; `row(i)` gives the same results as a JSON row. */
function fill(bytes: number, header: string, block: (i: number) => string, row: (i: number) => unknown, footer = ''): ReaderInput {
  const parts: string[] = [header];
  const rows: string[] = [];
  let size = header.length;
  let jsonSize = 0;
  for (let i = 0; size < bytes; i++) {
    const b = block(i);
    parts.push(b);
    size += b.length;
    // Rows until the JSON holds about as many characters as the text.
    while (jsonSize < size) {
      const r = JSON.stringify(row(rows.length));
      rows.push(r);
      jsonSize += r.length + 2;
    }
  }
  parts.push(footer);
  return { text: parts.join(''), json: `[\n${rows.join(',\n')}\n]\n` };
}

/** goBench: `go test -bench . -benchmem -count N` lines with a custom metric (fixtures/go/packages.txt). */
export function goBench(bytes: number): ReaderInput {
  return fill(
    bytes,
    'goos: linux\ngoarch: amd64\npkg: example.com/bench\ncpu: Generated CPU @ 2.40GHz\n',
    (i) =>
      `BenchmarkGenerated/size=${i >> 4}-2   \t 1000000\t      ${(1234.5 + (i % 97)).toFixed(1)} ns/op\t  ${(812.25 + (i % 13)).toFixed(2)} MB/s\t     ${64 + (i % 7)} B/op\t       ${1 + (i % 3)} allocs/op\n`,
    (i) => ({ name: `BenchmarkGenerated/size=${i >> 4}`, procs: 2, iterations: 1000000, ns_per_op: 1234.5 + (i % 97), mb_per_s: 812.25 + (i % 13), bytes_per_op: 64 + (i % 7), allocs_per_op: 1 + (i % 3) }),
    'PASS\nok  \texample.com/bench\t12.345s\n',
  );
}

/** criterionConsole: `cargo bench` with criterion, progress lines, throughput and change blocks (fixtures/criterion/cargo-bench-console.txt). */
export function criterionConsole(bytes: number): ReaderInput {
  return fill(
    bytes,
    '     Running benches/generated.rs (target/release/deps/generated-0123456789abcdef)\n',
    (i) => {
      const name = `checksum/fold/${i >> 3}`;
      const t = 600 + (i % 89);
      return (
        `Benchmarking ${name}\nBenchmarking ${name}: Warming up for 3.0000 s\nBenchmarking ${name}: Collecting 100 samples in estimated 5.0000 s (8.8M iterations)\nBenchmarking ${name}: Analyzing\n` +
        `${name.padEnd(24)}time:   [${(t - 12.5).toFixed(2)} ns ${t.toFixed(2)} ns ${(t + 11.25).toFixed(2)} ns]\n` +
        `                        thrpt:  [352.03 MiB/s ${(368 + (i % 7)).toFixed(2)} MiB/s 394.49 MiB/s]\n` +
        '                 change:\n                        time:   [−7.0195% +1.0650% +4.0554%] (p = 0.27 > 0.05)\n' +
        '                        thrpt:  [−3.8530% −1.0550% +7.5495%]\n                        No change in performance detected.\n' +
        'Found 3 outliers among 100 measurements (3.00%)\n  2 (2.00%) high mild\n  1 (1.00%) high severe\n\n'
      );
    },
    (i) => ({ id: `checksum/fold/${i >> 3}`, unit: 'ns', lower: 587.5 + (i % 89), estimate: 600 + (i % 89), upper: 611.25 + (i % 89), throughput: { unit: 'B/s', estimate: (368 + (i % 7)) * 1048576 } }),
  );
}

/** libtestBencher: `cargo bench` libtest lines, also criterion's `--output-format bencher` (fixtures/criterion/bencher-console.txt). */
export function libtestBencher(bytes: number): ReaderInput {
  return fill(
    bytes,
    '\nrunning 1000 tests\n',
    // A suite of 4,000 benchmarks, its runs concatenated.
    (i) => `test bench::generated::case_${(i % 4000) >> 4} (size ${i & 15}) ... bench:      ${(1754 + (i % 997)).toLocaleString('en-US')} ns/iter (+/- ${12 + (i % 31)})\n`,
    (i) => ({ name: `bench::generated::case_${(i % 4000) >> 4} (size ${i & 15})`, value: 1754 + (i % 997), unit: 'ns/iter', range: 12 + (i % 31) }),
    '\ntest result: ok. 0 passed; 0 failed; 0 ignored; 1000 measured; 0 filtered out\n',
  );
}

/** catch2Console: Catch2 v2 console tables with analysis (fixtures/catch2/console.txt). */
export function catch2Console(bytes: number): ReaderInput {
  const header =
    '\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\nbench is a Catch v2.13.10 host application.\nRun with -? for options\n\n' +
    '-------------------------------------------------------------------------------\nGenerated\n-------------------------------------------------------------------------------\nbench.cpp:15\n...............................................................................\n\n' +
    'benchmark name                       samples       iterations    estimated\n                                     mean          low mean      high mean\n                                     std dev       low std dev   high std dev\n' +
    '-------------------------------------------------------------------------------\n';
  return fill(
    bytes,
    header,
    (i) => {
      const mean = 6.09551 + (i % 97) / 100;
      return (
        `${`fibonacci ${i >> 3}`.padEnd(37)}${'100'.padStart(10)}${String(15 + (i % 7)).padStart(14)}${'994.8 us'.padStart(15)} \n` +
        `${`${mean.toFixed(5)} us`.padStart(50)}    1.22607 us    25.4415 us \n` +
        `${'20.9206 us'.padStart(50)}    5.50797 ns    41.5545 us \n` +
        `${''.padEnd(79)}\n`
      );
    },
    (i) => ({ name: `fibonacci ${i >> 3}`, samples: 100, iterations: 15 + (i % 7), mean: { value: (6.09551 + (i % 97) / 100) * 1000, lowerBound: 1226.07, upperBound: 25441.5 }, standardDeviation: { value: 20920.6, lowerBound: 5.50797, upperBound: 41554.5 } }),
    '\n===============================================================================\ntest cases: 1 | 1 passed\nassertions: - none -\n\n',
  );
}

/** catch2Xml: Catch2's XML reporter (fixtures/catch2/report.xml). */
export function catch2Xml(bytes: number): ReaderInput {
  return fill(
    bytes,
    '<?xml version="1.0" encoding="UTF-8"?>\n<Catch name="bench">\n  <Group name="bench">\n    <TestCase name="Generated" filename="bench.cpp" line="15">\n',
    (i) =>
      `      <BenchmarkResults name="fibonacci ${i >> 3}" samples="20" resamples="100000" iterations="14" clockResolution="34.6682" estimatedDuration="712040">\n` +
      '        <!--All values in nano seconds-->\n' +
      `        <mean value="${(2558.44 + (i % 97)).toFixed(2)}" lowerBound="2432.06" upperBound="2652.24" ci="0.95"/>\n` +
      '        <standardDeviation value="246.984" lowerBound="175.05" upperBound="313.803" ci="0.95"/>\n' +
      '        <outliers variance="0.433024" lowMild="4" lowSevere="0" highMild="0" highSevere="0"/>\n      </BenchmarkResults>\n',
    (i) => ({ name: `fibonacci ${i >> 3}`, samples: 20, resamples: 100000, iterations: 14, clockResolution: 34.6682, estimatedDuration: 712040, mean: { value: 2558.44 + (i % 97), lowerBound: 2432.06, upperBound: 2652.24, ci: 0.95 }, standardDeviation: { value: 246.984, lowerBound: 175.05, upperBound: 313.803, ci: 0.95 }, outliers: { variance: 0.433024, lowMild: 4, lowSevere: 0, highMild: 0, highSevere: 0 } }),
    '      <OverallResult success="true"/>\n    </TestCase>\n  </Group>\n</Catch>\n',
  );
}

/** dartRunTime: `BenchmarkBase.report()` lines of Dart's benchmark_harness (fixtures/dart/repeated-handwritten.txt). */
export function dartRunTime(bytes: number): ReaderInput {
  return fill(
    bytes,
    '',
    // A suite of 2,000 benchmarks, its runs concatenated.
    (i) => `growable[${i % 2000}](RunTime): ${(1.8629797056305768 + (i % 97) / 1000).toString()} us.\n`,
    (i) => ({ name: `growable[${i % 2000}]`, unit: 'us', value: 1.8629797056305768 + (i % 97) / 1000 }),
  );
}

/** plainLines: hand-rolled `name: value unit` lines with headings between rounds (fixtures/plain/rounds-handwritten.txt). */
export function plainLines(bytes: number): ReaderInput {
  const units = ['μs', 'us', 'ms', 'ns', 'µs'];
  return fill(
    bytes,
    '# generated rounds of a hand-rolled benchmark app, one result per line\n',
    (i) => `${i % 1000 === 0 ? `== round ${i / 1000} ==\n` : ''}decode/case ${i % 1000}: ${(812.5 + (i % 89)).toFixed(1)} ${units[(i % 1000) % 5]}\n`,
    (i) => ({ name: `decode/case ${i % 1000}`, value: 812.5 + (i % 89), unit: units[(i % 1000) % 5] }),
  );
}
