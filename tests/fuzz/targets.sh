# The libFuzzer targets of tests/fuzz, one line each: name|sources besides tests/fuzz/<name>.c, and libraries|
# seed corpus|max_len|what it fuzzes (for the test's line). Sourced by tests/fuzz/run.sh (`make fuzz`) and
# tests/tools/fuzz.sh (the short pass of `make test`), so a new target is one line here.
# The suite table as ppbenchd links it: its checks and every suite's byte and flop models (run from the root).
suite_table="kernels/suite.c kernels/suites.c kernels/lattice.c $(echo kernels/*/model.c)"
# shellcheck disable=SC2034
fuzz_targets=(
    "config_fuzz|server/config.c lib/log.c lib/error.c|tests/fuzz/corpus-config|2048|the configuration parser"
    "import_fuzz|lib/babelstream.c lib/error.c -lm|tests/fuzz/corpus|8192|the BabelStream CSV import"
    "runner_json_fuzz|lib/runner_json.c lib/error.c -ljansson -lm|tests/fuzz/corpus-runner-json|4096|the runners' JSON form (a site's program's output)"
    "report_fuzz|server/api/report_check.c server/api/catalog.c $suite_table lib/error.c lib/stats.c -ljansson -lm|tests/fuzz/corpus-report|4096|a worker's result report against its job"
    "suite_fuzz|$suite_table lib/error.c -ljansson -lm|tests/fuzz/corpus-suite|4096|job-submission validation over every suite"
    "claim_fuzz|worker/runner_args.c $suite_table lib/error.c -ljansson -lm|tests/fuzz/corpus-claim|4096|the worker's parsing of a claimed job"
    "target_fuzz|server/http/parse.c|tests/fuzz/corpus-target|4096|the route matcher, query parameters and Last-Event-ID"
    "smbios_fuzz|worker/smbios.c lib/error.c|tests/fuzz/corpus-smbios|512|the SMBIOS memory devices behind the CPU's peak"
    "register_fuzz|server/api/register_check.c server/http/errors.c lib/error.c $suite_table -ljansson -lpthread|tests/fuzz/corpus-register|2048|a worker's registration document"
)
FUZZ_CC="clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE"
