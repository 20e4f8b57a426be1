#!/usr/bin/env bash
# pyramid-cli as users run it, on stories260K: a reply cut off by the context is kept and said,
# --preset compresses without --policy, bad sampling values and a missing $PYRAMID_MODEL are
# refused (a wrong --budgets count as soon as the model is known), a prompt too long for the
# context says how to go on, Ctrl-C at the prompt quits.
#   cli_test.sh PYRAMID_CLI MODEL
set -euo pipefail
cli=$1 model=$2
source "$(dirname "$0")/../support/tool_checks.sh"
[ -f "$model" ] || { echo "SKIP: $model not found"; exit 77; }

# More tokens than the context holds: the reply runs to the end of the context, is kept, and says so.
"$cli" -m "$model" --raw --temperature 0 -n 4000 -p "Once upon a time" >"$tmp/long.out" 2>"$tmp/long.err" ||
  fail "a reply cut off by the context exited $?: $(tail -3 "$tmp/long.err")"
grep -q "cut off: the reply reached the end of the model's context" "$tmp/long.err" ||
  fail "the cut-off was not said: $(tail -3 "$tmp/long.err")"
grep -q "\[stats\]" "$tmp/long.err" || fail "no statistics after a cut-off reply"
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
expect 0 "restart with --overflow drop-oldest" "$cli" -m "$model" --raw -n 8 <"$tmp/turns"
expect 2 "top-p" "$cli" -m "$model" --top-p 1.5 -p hi
expect 2 "PYRAMID_MODEL is /nonexistent/llama-2.gguf" env PYRAMID_MODEL=/nonexistent/llama-2.gguf "$cli" -p hi

# Ctrl-C at the prompt quits with 130; blank lines are not sent.
mkfifo "$tmp/in"
"$cli" -m "$model" --raw <"$tmp/in" >/dev/null 2>"$tmp/chat.err" &
pid=$!
exec 3>"$tmp/in"
printf '   \n' >&3
for _ in $(seq 100); do grep -q "Interactive chat" "$tmp/chat.err" && break; sleep 0.1; done
sleep 0.3
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
exec 3>&-
[ "$rc" = 130 ] || fail "Ctrl-C at the prompt exited $rc, expected 130: $(cat "$tmp/chat.err")"
if grep -q "pyramid-cli:" "$tmp/chat.err"; then fail "a blank line was sent: $(cat "$tmp/chat.err")"; fi
echo "pyramid-cli: all checks passed"
