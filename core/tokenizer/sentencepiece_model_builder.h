#pragma once
// Turns the vocabulary a GGUF file embeds (tokenizer.ggml.*) into the SentencePiece model
// LLaMA-2 ships as tokenizer.model, so the very same SentencePiece library encodes and
// decodes both, and a GGUF model tokenizes exactly as Meta's tokenizer does.
//
// The result is a serialized sentencepiece.ModelProto: the pieces with their scores and
// types, a BPE trainer spec with byte fallback and the vocabulary's special ids, and
// LLaMA-2's normalizer spec ("identity" rules, a dummy prefix space, whitespace kept and
// escaped as U+2581).
//
// Why the protobuf is written by hand: Debian's libsentencepiece carries its own copy of
// protobuf-lite 3.14 and exports its symbols, so linking the system libprotobuf (3.21) as
// well makes the process abort at start-up ("compiled against version 3.14.0 ... not
// compatible with the installed version") or silently mixes the two ABIs. The handful of
// fields written here need only the stable protobuf wire format.
#include <string>

#include "tokenizer/vocab.h"

namespace pyramid {

// Checks the vocabulary (model "llama", tokens/scores/types of one length, known piece
// types, special ids in range) and serializes it. Throws pyramid::Error naming the
// tokenizer.ggml.* key at fault, with expected and found values.
std::string build_sentencepiece_model(const EmbeddedVocab& vocab);

} // namespace pyramid
