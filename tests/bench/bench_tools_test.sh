#!/usr/bin/env bash
# pyramid-bench as users run it, with the bench/ scripts that read its output:
#   bench_tools_test.sh PYRAMID_BENCH PYRAMID_EVAL PYTHON SOURCE_DIR
set -euo pipefail
bench=$1 eval_tool=$2 python=$3 src=$4
source "$(dirname "$0")/../support/tool_checks.sh"

# The Hugging Face baseline builds the same shapes as pyramid-bench.
diff <("$bench" --list-shapes) <("$python" "$src/bench/hf_baseline.py" --list-shapes) ||
  fail "bench/hf_baseline.py and pyramid-bench disagree on the shapes"

"$bench" --shape tiny --device cpu --prompt-len 40 --gen-len 8 --batch 1,2 --policy full,pyramid \
  --max-batch --kv-memory 0.01 --warmup 0 --json "$tmp/r.json" >"$tmp/table.md"
grep -q '| pyramid | 2 | 40+8 |' "$tmp/table.md" || fail "no pyramid row in the table: $(cat "$tmp/table.md")"
grep -q '(max; planned' "$tmp/table.md" || fail "no max-batch row in the table"
# On the CPU the budget is the backend's blocks: the largest batch that runs is the one the
# block plan predicted (one more was tried and did not fit).
"$python" -c 'import json, sys
runs = json.load(open(sys.argv[1]))["max_batch"]
bad = [m for m in runs if not m["batch"] == m["planned_batch"] > 0]
sys.exit("largest batch is not the planned one: %s" % bad if bad else 0)' "$tmp/r.json" ||
  fail "pyramid-bench --max-batch on the CPU found another batch than the allocator predicts"

"$python" "$src/bench/paper_table.py" --from-json "$tmp/r.json" --out "$tmp/paper.json" >"$tmp/paper.md"
grep -q 'ours pyramid' "$tmp/paper.md" || fail "paper_table.py did not render our runs: $(cat "$tmp/paper.md")"

# pyramid-bench names the card with its compute capability and precision, the baseline by the
# card alone: the same card is no mismatch, another card is.
renamed() {
  "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["tool"] = sys.argv[2]
d["device"]["name"] = sys.argv[3]; json.dump(d, open(sys.argv[4], "w"))' "$tmp/r.json" "$@"
}
renamed pyramid-bench "Test Card (sm_90, fp16)" "$tmp/ours.json"
renamed hf_baseline "Test Card" "$tmp/same.json"
renamed hf_baseline "Another Card" "$tmp/other.json"
"$python" "$src/bench/paper_table.py" --from-json "$tmp/ours.json" "$tmp/same.json" >/dev/null 2>"$tmp/same.err"
grep -q 'different devices' "$tmp/same.err" && fail "the same card was taken for another: $(cat "$tmp/same.err")"
"$python" "$src/bench/paper_table.py" --from-json "$tmp/ours.json" "$tmp/other.json" >/dev/null 2>"$tmp/other.err"
grep -q 'different devices' "$tmp/other.err" || fail "another card was not reported: $(cat "$tmp/other.err")"

# Run by paper_table, the baseline's largest-batch search starts from our full cache's largest
# batch (a stand-in baseline records how it was called).
cat >"$tmp/fake_hf.py" <<'PY'
import json, sys
args = sys.argv[1:]
out = args[args.index("--json") + 1]
doc = json.load(open(out.replace("hf_baseline", "pyramid-bench")))
doc.update(tool="hf_baseline", command=" ".join(args), max_batch=[])
json.dump(doc, open(out, "w"))
PY
"$python" "$src/bench/paper_table.py" --pyramid-bench "$bench" --hf-script "$tmp/fake_hf.py" --shape tiny \
  --device cpu --prompt-len 40 --gen-len 8 --batch 1 --policy full,pyramid --max-batch --kv-memory 0.01 \
  --max-batch-limit 64 --max-batch-within 4 --warmup 0 --repetitions 1 --out "$tmp/both/run.json" >/dev/null ||
  fail "paper_table.py did not run both tools"
ours_max=$("$python" -c 'import json, sys
print([m["batch"] for m in json.load(open(sys.argv[1]))["max_batch"] if m["label"] == "full"][0])' \
  "$tmp/both/run.pyramid-bench.json")
grep -q -- "--max-batch-from $ours_max --max-batch-within 4" "$tmp/both/run.hf_baseline.json" ||
  fail "the baseline's search did not start from our largest batch ($ours_max): $(cat "$tmp/both/run.hf_baseline.json")"

"$eval_tool" bench-plots "$tmp/r.json" --out "$tmp/plots" >/dev/null
for f in bench_throughput.svg bench_throughput.png bench_kv_layers.svg bench_kv_layers.png; do
  [ -s "$tmp/plots/$f" ] || fail "bench-plots did not write $f"
done

# Without --device, generated weights run on CUDA where its backend starts, else on the CPU,
# saying why.
"$bench" --shape tiny --prompt-len 8 --gen-len 2 --warmup 0 --json "$tmp/auto.json" >"$tmp/auto.md" 2>"$tmp/auto.err" ||
  fail "pyramid-bench on the default device failed: $(cat "$tmp/auto.err")"
if grep -q '"backend": "cuda"' "$tmp/auto.json"; then
  grep -q 'tiny on cuda: the CUDA backend from' "$tmp/auto.err" || fail "no backend line: $(cat "$tmp/auto.err")"
else
  grep -q 'tiny on cpu: running on the CPU: ' "$tmp/auto.err" || fail "the CPU went unexplained: $(cat "$tmp/auto.err")"
  grep -q '"backend_note": "running on the CPU: ' "$tmp/auto.json" || fail "no backend note in the JSON"
fi

# Refusals name the problem and use the documented exit codes.
expect 3 "unknown model shape 'nope'" "$bench" --shape nope --device cpu
expect 2 "needs --kv-memory" "$bench" --shape tiny --device cpu --prompt-len 8 --gen-len 2 --warmup 0 --max-batch
expect 2 "do not fit the model's context" "$bench" --shape tiny --device cpu --prompt-len 1000 --gen-len 100
expect 2 "is not the JSON of pyramid-bench" "$eval_tool" bench-plots "$src/bench/README.md" --out "$tmp/x"
expect 2 "cannot create the folder" "$eval_tool" bench-plots "$tmp/r.json" --out /proc/no/such/folder
expect 2 "batch" "$bench" --shape tiny --device cpu --batch abc
expect 2 "bogus" "$bench" --bogus
expect 2 "cannot write /proc/no/r.json" "$bench" --shape tiny --device cpu --json /proc/no/r.json
expect 2 "max-batch-limit" "$bench" --shape tiny --device cpu --max-batch-limit 0
echo "bench tools: all checks passed"
