#!/usr/bin/env bash
# pyramid-cli as users run it, on stories260K: a reply cut off by the context is kept and said,
# --preset compresses without --policy, bad sampling values (NaN too), an empty prompt and a
# missing $PYRAMID_MODEL are refused (a wrong --budgets count as soon as the model is known), a
# prompt too long for the context says how to go on, turns per line (a backslash joins lines,
# -p - reads them all), the format by the model's name (ChatML from the default model's template), a drawn seed repeats its run, Ctrl-C at
# the prompt quits, the cache precision is chosen, the default model search skips vocabulary files,
# --json answers with JSON objects.
#   cli_test.sh PYRAMID_CLI MODEL
set -euo pipefail
cli=$1 model=$2
source "$(dirname "$0")/../support/tool_checks.sh"
[ -f "$model" ] || { echo "SKIP: $model not found"; exit 77; }

# More tokens than the context holds: the reply runs to the end of the context, is kept, and says so.
"$cli" -m "$model" --raw --temperature 0 -n 4000 --ignore-eos -p "Once upon a time" \
  >"$tmp/long.out" 2>"$tmp/long.err" ||
  fail "a reply cut off by the context exited $?: $(tail -3 "$tmp/long.err")"
grep -q "cut off: the reply reached the end of the model's context" "$tmp/long.err" ||
  fail "the cut-off was not said: $(tail -3 "$tmp/long.err")"
grep -q "\[stats\]" "$tmp/long.err" || fail "no statistics after a cut-off reply"
# Without --ignore-eos the story ends where stories260K starts the next one (a BOS), unsaid.
"$cli" -m "$model" --raw --temperature 0 -n 4000 -p "Once upon a time" >"$tmp/story.out" 2>"$tmp/story.err"
[ "$(wc -c <"$tmp/story.out")" -lt "$(wc -c <"$tmp/long.out")" ] || fail "the story did not end at its BOS"
if grep -q "cut off\|reached --max-tokens" "$tmp/story.err"; then
  fail "an ended story said more: $(cat "$tmp/story.err")"
fi
[ "$(wc -w <"$tmp/long.out")" -gt 500 ] || fail "the cut-off reply is missing from stdout"

# A preset alone means PyramidInfer: deeper layers keep fewer entries.
prompt=$(printf 'Tom and Lily went to the park to play with a red ball. %.0s' 1 2 3 4 5 6 7 8 9 10 11 12)
"$cli" -m "$model" --raw --temperature 0 -n 1 --preset reference-7b --min-context 8 -p "$prompt" \
  >/dev/null 2>"$tmp/preset.err" || fail "the preset run failed: $(cat "$tmp/preset.err")"
lengths=$(sed -n 's/.*KV entries per layer: \([0-9 ]*\) (full.*/\1/p' "$tmp/preset.err" | head -1)
[ -n "$lengths" ] || fail "no per-layer lengths: $(cat "$tmp/preset.err")"
read -r -a layer <<<"$lengths"
[ "${layer[-1]}" -lt "${layer[0]}" ] || fail "--preset without --policy did not compress: $lengths"

expect 2 "repeat-penalty" "$cli" -m "$model" --repeat-penalty 0 -p hi
expect 2 "layer_budgets has 2 entries but the model has 5 layers" "$cli" -m "$model" --policy local --budgets 4,4 -p hi
# A turn that outgrows the context with the earlier ones says how to go on (about 1400 + 700 tokens).
{ printf 'the cat sat on the mat and %.0s' $(seq 140); echo; printf 'the dog ran to the park and %.0s' $(seq 70); echo; } \
  >"$tmp/turns"
# Turns from a pipe: the refused one makes the exit status 4.
expect 4 "restart with --overflow drop-oldest" "$cli" -m "$model" --raw -n 8 <"$tmp/turns"
expect 2 "top-p" "$cli" -m "$model" --top-p 1.5 -p hi
expect 2 "PYRAMID_MODEL is /nonexistent/llama-2.gguf" env PYRAMID_MODEL=/nonexistent/llama-2.gguf "$cli" -p hi
expect 2 "the prompt is empty" "$cli" -m "$model" -p ""
expect 2 "temperature" "$cli" -m "$model" --temperature nan -p hi
expect 2 "seed must be a whole number" "$cli" -m "$model" --seed 1.5 -p hi
expect 0 "" "$cli" -m "$model" --raw -n 2 --seed 18446744073709551615 -p hi
expect 2 "no place in the raw format" "$cli" -m "$model" -s "Be brief." -p hi  # raw by the model's name
expect 2 "no place in the raw format" "$cli" -m "$model" --raw -s "Be brief." -p hi
expect 0 "" "$cli" -m "$model" --raw -n 2 --top-k -1 -p hi  # llama.cpp's "off"
expect 0 "" "$cli" -m "$model" --raw -n 2 --kv-type f32 -p hi
expect 2 "kv-type" "$cli" -m "$model" --kv-type q8_0 -p hi
expect 2 "kv-type-v" "$cli" -m "$model" --kv-type-v q5 -p hi
# stories260K's heads are 8 values, less than one q8 block.
expect 3 "multiple of 32" "$cli" -m "$model" --kv-type-k q8 -p hi
# With no --model the search passes over a tokenizer's vocabulary-only GGUF (llama.cpp ships
# them as ggml-vocab-*.gguf) in the user's folder and finds the bundled model.
vocab=$(dirname "$model")/ggml-vocab-llama-spm.gguf
if [ -f "$vocab" ]; then
  mkdir -p "$tmp/data/pyramidchat/models"
  ln -s "$vocab" "$tmp/data/pyramidchat/models/a-vocab.gguf"
  expect 0 "" env -u PYRAMID_MODEL XDG_DATA_HOME="$tmp/data" "$cli" --raw -n 2 -p hi
fi

# One message per line, a trailing backslash going on; -p - takes all of standard input.
replies() { grep -c '^\[stats\]' "$1"; }
printf 'Once upon a time\nthere was a cat\n' | "$cli" -m "$model" --raw -n 2 >/dev/null 2>"$tmp/lines.err"
[ "$(replies "$tmp/lines.err")" = 2 ] || fail "two lines were not two turns: $(cat "$tmp/lines.err")"
printf 'Once upon a time\\\nthere was a cat\n' | "$cli" -m "$model" --raw -n 2 >/dev/null 2>"$tmp/joined.err"
[ "$(replies "$tmp/joined.err")" = 1 ] || fail "a backslash did not join the lines: $(cat "$tmp/joined.err")"
printf 'Once upon a time\nthere was a cat\n' | "$cli" -m "$model" --raw -n 2 -p - >/dev/null 2>"$tmp/all.err"
[ "$(replies "$tmp/all.err")" = 1 ] || fail "-p - was not one prompt: $(cat "$tmp/all.err")"

# The format follows the model's name; a drawn seed is said and repeats the run.
"$cli" -m "$model" -n 2 -p hi >/dev/null 2>"$tmp/auto.err"
grep -q '^\[format\] raw (a base model by its name' "$tmp/auto.err" || fail "stories260K did not get the raw format: $(cat "$tmp/auto.err")"
# Files that never end or never open are refused at once, not waited on (timeout: a hang fails).
mkfifo "$tmp/fifo.gguf" "$tmp/fifo.json"
expect 3 "not a regular file or a folder" timeout 10 "$cli" -m "$tmp/fifo.gguf" -p hi
expect 2 "is not a regular file" timeout 10 "$cli" -m "$model" --config "$tmp/fifo.json" -p hi
expect 2 "is not a regular file" timeout 10 "$cli" -m "$model" --config /dev/zero -p hi
expect 2 "standard input holds more than 64 MiB" timeout 20 "$cli" -m "$model" -p - < <(head -c $((65 << 20)) /dev/zero)
expect 2 "'abc' is not a whole number" "$cli" -m "$model" --max-tokens abc -p hi
expect 2 "0 is not in the range 1 to 1048576" "$cli" -m "$model" --max-tokens 0 -p hi
printf '{"recent_ratoi": 0.3}' >"$tmp/typo.json"
expect 2 'did you mean "recent_ratio"' "$cli" -m "$model" --config "$tmp/typo.json" -p hi
# A format whose control tokens the vocabulary lacks is refused by name.
expect 4 "needs the control token <|im_start|>" "$cli" -m "$model" --format chatml -p hi
# The default chat model (when setup fetched it): ChatML from its template, a sensible answer.
smollm=${XDG_DATA_HOME:-$HOME/.local/share}/pyramidchat/models/SmolLM2-135M-Instruct.Q4_1.gguf
if [ -f "$smollm" ]; then
  env -u PYRAMID_MODEL "$cli" --temperature 0 -n 32 -p "What is the capital of France?" >"$tmp/paris.out" 2>"$tmp/paris.err" ||
    fail "the default model did not answer: $(cat "$tmp/paris.err")"
  grep -q '^\[format\] chatml (the file.s chat template' "$tmp/paris.err" || fail "no ChatML: $(cat "$tmp/paris.err")"
  grep -q "Paris" "$tmp/paris.out" || fail "no Paris in: $(cat "$tmp/paris.out")"
  # --json: two turns, each one JSON object that a JSON reader takes whole.
  printf 'Give me a JSON object with the name and age of a person.\nAnother one, a different person.\n' |
    env -u PYRAMID_MODEL "$cli" --json --temperature 0 -n 100 >"$tmp/json.out" 2>"$tmp/json.err" ||
    fail "--json failed: $(cat "$tmp/json.err")"
  python3 -c 'import json, sys
text = open(sys.argv[1]).read()
decoder, at, objects = json.JSONDecoder(), 0, []
while text[at:].strip():
    value, at = decoder.raw_decode(text, at + len(text[at:]) - len(text[at:].lstrip()))
    objects.append(value)
assert len(objects) == 2 and all(isinstance(o, dict) and "name" in o for o in objects), objects' "$tmp/json.out" ||
    fail "--json did not answer with two objects: $(cat "$tmp/json.out")"
  # --json-schema: the schema's properties, in its order, of its types, bounds and formats.
  printf '{"type": "object", "properties": {"name": {"type": "string", "maxLength": 30},
    "age": {"type": "integer", "minimum": 18, "maximum": 99}, "born": {"type": "string", "format": "date"},
    "pets": {"type": "array", "items": {"enum": ["cat", "dog"]}, "maxItems": 2}}, "required": ["name", "age", "born", "pets"]}' \
    >"$tmp/person.schema.json"
  env -u PYRAMID_MODEL "$cli" --json-schema "$tmp/person.schema.json" --temperature 0 -n 140 \
    -p "Give me a JSON object with the name and age of a person." >"$tmp/schema.out" 2>"$tmp/schema.err" ||
    fail "--json-schema failed: $(cat "$tmp/schema.err")"
  python3 -c 'import datetime, json, sys
o = json.load(open(sys.argv[1]))
assert list(o) == ["name", "age", "born", "pets"] and isinstance(o["age"], int) and 18 <= o["age"] <= 99 and \
    len(o["name"]) <= 30 and datetime.date.fromisoformat(o["born"]) and len(o["pets"]) <= 2 and \
    set(o["pets"]) <= {"cat", "dog"}, o' "$tmp/schema.out" ||
    fail "--json-schema did not answer with the schema: $(cat "$tmp/schema.out")"
fi
# A schema the reply could not be held to is an error naming where it asks for it.
printf '{"properties": {"n": {"type": "integer", "multipleOf": 2}}}' >"$tmp/even.schema.json"
if "$cli" -m "$model" --json-schema "$tmp/even.schema.json" -p "x" >/dev/null 2>"$tmp/even.err"; then
  fail "--json-schema took a schema with multipleOf"
fi
grep -q "even.schema.json: JSON schema at /properties/n: 'multipleOf' is not supported" "$tmp/even.err" ||
  fail "the schema's error does not say where: $(cat "$tmp/even.err")"
# JSON mode holds even a model that knows no JSON: the reply begins an object (after the
# white space JSON mode allows, which stories260K draws first).
"$cli" -m "$model" --raw --json --seed 5 -n 40 -p "Once upon a time" >"$tmp/story.json" 2>/dev/null ||
  fail "--json on stories260K failed"
[ "$(tr -d ' \n\t' <"$tmp/story.json" | head -c 1)" = "{" ] || fail "--json did not begin an object: $(cat "$tmp/story.json")"

"$cli" -m "$model" --raw -n 24 --seed -1 -p "Once upon a time" >"$tmp/first.out" 2>"$tmp/seed.err"
seed=$(sed -n 's/^\[seed\] \([0-9]*\) .*/\1/p' "$tmp/seed.err")
[ -n "$seed" ] || fail "the drawn seed was not said: $(cat "$tmp/seed.err")"
"$cli" -m "$model" --raw -n 24 --seed "$seed" -p "Once upon a time" >"$tmp/again.out" 2>/dev/null
cmp -s "$tmp/first.out" "$tmp/again.out" || fail "--seed $seed did not repeat the run"

# Ctrl-C at the prompt quits with 130; blank lines are not sent.
mkfifo "$tmp/in"
"$cli" -m "$model" --raw <"$tmp/in" >/dev/null 2>"$tmp/chat.err" &
pid=$!
exec 3>"$tmp/in"
printf '   \n' >&3
for _ in $(seq 100); do grep -q "^\[model\]" "$tmp/chat.err" && break; sleep 0.1; done
sleep 0.3
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
exec 3>&-
[ "$rc" = 130 ] || fail "Ctrl-C at the prompt exited $rc, expected 130: $(cat "$tmp/chat.err")"
if grep -q "pyramid-cli:" "$tmp/chat.err"; then fail "a blank line was sent: $(cat "$tmp/chat.err")"; fi
echo "pyramid-cli: all checks passed"
