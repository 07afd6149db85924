#!/bin/bash
# Mutation testing of the modules that produce numbers a user reads: each module is mutated
# by mutmut 2, in a copy of the tree (one small change at a time: an operator, a constant, a comparison),
# and the tests that cover it must fail on every mutant.  Survivors are printed with their
# diffs.  Slow (minutes per module on 2 cores), so not part of the default test command.
#   bash scripts/mutation.sh            # every target below
#   bash scripts/mutation.sh compare    # the targets whose name contains "compare"
#   MUTATION_FRESH=1 bash scripts/mutation.sh fit   # forget the kept results: every mutant again
# Needs the project's .venv (bash scripts/setup.sh); installs mutmut 2.4.5 into it.  Results
# (counts, each survivor's diff, mutmut's database) go to build/mutation/.
set -euo pipefail
cd "$(dirname "$0")/.."
"$PWD/.venv/bin/python" -m pip install -q "mutmut==2.4.5"
# module | the tests that pin its numbers (the pure ones: no QEMU, no gem5)
targets=(
  "sim-configs/vmscale_gem5/stats.py|tests/test_gem5_pure.py"
  "scripts/vmscale/compare.py|tests/test_compare.py"
  "queueing-model/vmscale_model/network.py|tests/test_model_network.py tests/test_model.py -k 'law or hop or bounded or closed_form or lock or network'"
  "queueing-model/vmscale_model/solvers.py|tests/test_model_solvers.py tests/test_model.py -k 'solvers or mva or bounded or closed_form or lock or reproducible'"
  "queueing-model/vmscale_model/fit.py|tests/test_model_fit.py tests/test_model_study.py tests/test_model.py tests/test_model_interconnect.py -k 'not cli and not des_agrees and not des_is_reproducible and not piggins_closed and not one_over_s and not lock_holds'"
  "scripts/vmscale/sweep.py|tests/test_sweep.py -m 'not qemu' -k 'not slurm and not killed'"
  "queueing-model/vmscale_model/hotstations.py|tests/test_model_hotstations.py"
  "sim-configs/vmscale_gem5/hotlines.py|tests/test_hotlines.py -m 'not gem5'"
)
filter=${1:-}
repo=$PWD
out=$repo/build/mutation
mkdir -p "$out"
# mutmut changes files in place: it works on a copy of the tracked files, never on this
# checkout, whose code a sweep or a test run may be importing meanwhile.  The copy's
# packages come first on the path; built workloads are this checkout's.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$tree"
export PYTHONPATH="$tree/scripts:$tree/sim-configs:$tree/queueing-model"
export VMSCALE_BUILD=${VMSCALE_BUILD:-$repo/build}
py=$repo/.venv/bin/python
cd "$tree"
for t in "${targets[@]}"; do
  module=${t%%|*}; tests=${t#*|}
  [[ -n "$filter" && "$module" != *"$filter"* ]] && continue
  name=$(basename "$module" .py)
  echo "== $module  (tests: $tests)"
  # A module's earlier results are kept: mutmut re-tests only the mutants that were not killed
  # (after new tests: minutes, not the hour a full run takes).  MUTATION_FRESH=1 starts over.
  rm -f .mutmut-cache
  if [[ -f "$out/$name.sqlite" && -z "${MUTATION_FRESH:-}" ]]; then
    cp "$out/$name.sqlite" .mutmut-cache
    echo "   (re-testing the survivors of $out/$name.sqlite)"
  fi
  "$py" -m mutmut run --paths-to-mutate "$module" --no-progress \
      --runner "$py -m pytest -x -q -p no:cacheprovider -o addopts='' $tests" >"$out/$name.log" 2>&1 || true
  # every survivor, shown as the change that no test noticed
  for id in $("$py" -m mutmut result-ids survived 2>/dev/null); do
    "$py" -m mutmut show "$id" | sed -n '/^@@/,$p'
  done > "$out/$name.survivors.diff"
  "$py" - "$module" .mutmut-cache "$out/$name.survivors.diff" <<'PY'
import sqlite3, sys
module, db, diff = sys.argv[1:]
counts = dict(sqlite3.connect(db).execute("select status, count(*) from Mutant group by status"))
total = sum(counts.values())
print(f"{module}: {total} mutants, {counts.get('ok_killed', 0)} killed, "
      f"{counts.get('bad_survived', 0)} survived, {counts.get('bad_timeout', 0)} timed out"
      f"{'' if total else ' (none run: see the log)'}; survivors' diffs in {diff}")
PY
  mv .mutmut-cache "$out/$name.sqlite"
done
