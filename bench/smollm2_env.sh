# Sourced by the bench/smollm2_*.sh measurements: it makes the repository root the working
# folder (so OUT_DIR arguments are relative to it), runs each evaluation on one thread, names
# the model and text they measure, and writes the conversations every recall run scores.
# PYRAMID_EVAL names another pyramid-eval (a copy, so that a rebuild cannot change it mid-run).
set -euo pipefail
# One thread per evaluation: on a shared machine OpenMP threads that wait on each other spin.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
model=${PYRAMID_MODEL:-$HOME/.local/share/pyramidchat/models/SmolLM2-135M-Instruct.Q4_1.gguf}
text=${PYRAMID_SHARED:-../shared}/data/wikitext-2-raw-v1.test.txt
eval_tool=${PYRAMID_EVAL:-build/app/eval/pyramid-eval}

# recall_conversations FILE: the 200 generated four-turn conversations (the same generator and
# arguments everywhere, so every report scores the same cases).
recall_conversations() {
    python3 bench/make_recall_cases.py conversation --text "$text" --count 200 --turns 4 --filler-tokens 1000:1600 \
        --out "$1"
}

# recall_shards OUT_DIR SHARDS: the conversations in OUT_DIR/recall-conversations.jsonl, cut
# into SHARDS slices, OUT_DIR/shards/cases-01.jsonl and on, for processes run side by side.
recall_shards() {
    mkdir -p "$1/shards"
    recall_conversations "$1/recall-conversations.jsonl"
    split --number="l/$2" --numeric-suffixes=1 --additional-suffix=.jsonl "$1/recall-conversations.jsonl" "$1/shards/cases-"
}
