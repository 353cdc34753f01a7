# Bad input: each case gives its message and exit status 2, before anything runs.
. "$(dirname "$0")/../lib/check.sh"

run() { "$WORKER" run "$@"; }
base="--platform cpu0 --model openmp --suite stream"

expect "unknown platform"  2 'unknown platform "gpu9" \(this host has: cpu0' -- run --platform gpu9 --model openmp --suite stream
expect "unknown model"     2 'unknown model "sycl" \(built: openmp, opencl' -- run --platform cpu0 --model sycl --suite stream
expect "unknown suite"     2 'unknown suite "nbody"' -- run --platform cpu0 --model openmp --suite nbody
expect "unknown kernel"    2 'unknown kernel "triadd"' -- run $base --kernels copy,triadd
expect "empty kernel name" 2 'empty kernel name in ","' -- run $base --kernels ,
expect "empty kernel list" 2 'no kernel selected' -- run $base --kernels ''
expect "numtimes 1"        2 '--numtimes must be from 2 to' -- run $base --numtimes 1
expect "numtimes 0"        2 '--numtimes must be from 2 to' -- run $base --numtimes 0
expect "numtimes negative" 2 'invalid --numtimes "-3"' -- run $base --numtimes -3
expect "arraysize 0"       2 '--arraysize must be from 1 to' -- run $base --arraysize 0
expect "arraysize text"    2 'invalid --arraysize "lots"' -- run $base --arraysize lots
expect "arraysize too big for memory" 2 'array size 1000000000000 does not fit: 3 arrays of 1000000000000 fp64 elements need' -- \
    run $base --arraysize 1000000000000
expect "missing arguments" 2 'run needs --platform, --model and --suite' -- run --platform cpu0
expect "unknown option"    2 'unknown or incomplete option "--fast"' -- run $base --fast
expect "missing option value" 2 'unknown or incomplete option "--arraysize"' -- run $base --arraysize
expect "stray argument"    2 'unexpected argument "extra"' -- run $base extra
expect "unknown command"   2 'unknown command "lsit"' -- "$WORKER" lsit

if "$WORKER" list | grep -Eq '^cpu0 .*opencl'; then
    expect "opencl: arraysize too big" 2 'does not fit' -- \
        run --platform cpu0 --model opencl --suite stream --arraysize 1000000000000
fi
if "$WORKER" version | grep -q cuda; then
    expect "model that cannot drive the platform" 2 'model cuda cannot drive platform cpu0 \(cpu0 runs: openmp' -- \
        run --platform cpu0 --model cuda --suite stream
else
    skip "model that cannot drive the platform" "cuda backend not built"
fi
