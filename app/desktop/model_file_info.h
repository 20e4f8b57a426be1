#pragma once
// What the model menu says about a model before it is opened: a GGUF file's size, weight type,
// layers and context length from its header (mapped, not loaded), a Hugging Face folder's from
// config.json; or why it cannot be opened, in the user's language. A file that is no model
// (a text file named .gguf, a tokenizer's vocabulary without weights, a damaged file) is
// reported with its reason instead of being offered.
#include <QCoreApplication>
#include <QString>

#include "backend/kv_precision.h"
#include "kv/compression_config.h"

struct ModelFileInfo {
    Q_DECLARE_TR_FUNCTIONS(ModelFileInfo)

public:
    QString path;
    qint64 bytes = 0;        // the file, or a folder's weight files
    qint64 weightBytes = 0;  // the weights alone: a GGUF file's tensors (what a load holds, without
                             // the header and vocabulary), a folder's weight files
    QString weightType;   // llama.cpp's name ("Q4_K_M", "F16", ...); empty when unknown
    int layers = 0;       // 0: unknown
    int contextLength = 0;
    int kvHeads = 0;      // key/value heads per layer; 0: unknown
    int headDim = 0;      // values per head; 0: unknown
    QString problem;      // empty when it can be opened; else why not

    bool usable() const { return problem.isEmpty(); }
    // "1.2 GB · Q4_K_M · 22 layers · 2,048 positions", what is known of it.
    QString summary() const;
    // The KV cache a whole context takes: every layer full, and as PyramidInfer's prefill
    // schedule leaves it (the estimate pyramid-inspect makes, from the same core schedule), with
    // keys and values stored as `types` (scales included); 0 when the shape is unknown or the
    // types do not fit its heads (8 and 4 bits need a multiple of 32 values).
    qint64 fullKvBytes(pyramid::KvTypes types) const;
    qint64 pyramidKvBytes(const pyramid::PyramidSettings& pyramid, pyramid::KvTypes types) const;
    // "About 1.2 GB: weights 1.1 GB, KV cache 88 MB at 2,048 positions (31 MB with PyramidInfer)",
    // the weights as `weightBytes` (the model bar's figure once it is loaded); empty when the
    // shape is unknown.
    QString memoryText(const pyramid::PyramidSettings& pyramid, pyramid::KvTypes types) const;
};

// Reads `path` (a .gguf file or a model folder); never throws.
ModelFileInfo probeModelFile(const QString& path);
