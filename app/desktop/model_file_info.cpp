#include "model_file_info.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <algorithm>
#include <limits>
#include <map>

#include "model/gguf_file.h"
#include "kv/pyramid_schedule.h"
#include "model/tensor_type.h"
#include "util/error.h"

namespace {

// llama.cpp's names for general.file_type (its llama_ftype values), for the common ones.
QString fileTypeName(int64_t id)
{
    static const std::pair<int64_t, const char*> names[] = {
        {0, "F32"},     {1, "F16"},     {2, "Q4_0"},    {3, "Q4_1"},    {7, "Q8_0"},    {8, "Q5_0"},
        {9, "Q5_1"},    {10, "Q2_K"},   {11, "Q3_K_S"}, {12, "Q3_K_M"}, {13, "Q3_K_L"}, {14, "Q4_K_S"},
        {15, "Q4_K_M"}, {16, "Q5_K_S"}, {17, "Q5_K_M"}, {18, "Q6_K"},   {32, "BF16"},
    };
    for (const auto& [value, name] : names)
        if (value == id)
            return QString::fromLatin1(name);
    return {};
}

// Without general.file_type: the type most of the matrices have, in ggml's name upper-cased.
QString mostCommonMatrixType(const pyramid::GgufFile& file)
{
    std::map<std::string_view, int> counts;
    for (const pyramid::GgufTensorInfo& tensor : file.tensors())
        if (tensor.n_dims >= 2)
            ++counts[pyramid::tensor_type_traits(tensor.type).name];
    const auto most = std::max_element(counts.begin(), counts.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    return most == counts.end() ? QString() : QString::fromLatin1(most->first.data(), int(most->first.size())).toUpper();
}

int positiveInt(const std::optional<int64_t>& value)
{
    return value && *value > 0 && *value <= std::numeric_limits<int>::max() ? static_cast<int>(*value) : 0;
}

void probeGguf(ModelFileInfo& info)
{
    QFile file(info.path);
    if (!file.open(QIODevice::ReadOnly)) {
        info.problem = ModelFileInfo::tr("it cannot be read (%1)").arg(file.errorString());
        return;
    }
    if (file.read(4) != "GGUF") {
        info.problem = ModelFileInfo::tr("it is not a GGUF file");
        return;
    }
    file.close();
    try {
        const pyramid::GgufFile gguf = pyramid::GgufFile::open(info.path.toStdString());
        if (gguf.tensors().empty()) {
            info.problem = ModelFileInfo::tr("it holds no weights (a tokenizer's vocabulary only)");
            return;
        }
        const std::string arch(gguf.get_string("general.architecture").value_or("llama"));
        if (arch != "llama") {  // what the loader accepts (read_gguf_config)
            info.problem = ModelFileInfo::tr("its architecture %1 is not supported (LLaMA only)")
                               .arg(QString::fromStdString(arch).left(40));
            return;
        }
        for (const pyramid::GgufTensorInfo& tensor : gguf.tensors())
            info.weightBytes += qint64(tensor.nbytes);
        info.layers = positiveInt(gguf.get_int(arch + ".block_count"));
        info.contextLength = positiveInt(gguf.get_int(arch + ".context_length"));
        const int dim = positiveInt(gguf.get_int(arch + ".embedding_length"));
        const int heads = positiveInt(gguf.get_int(arch + ".attention.head_count"));
        const int kvHeads = positiveInt(gguf.get_int(arch + ".attention.head_count_kv"));
        if (dim > 0 && heads > 0) {
            info.headDim = dim / heads;
            info.kvHeads = kvHeads > 0 ? kvHeads : heads;
        }
        const auto fileType = gguf.get_int("general.file_type");
        info.weightType = fileType ? fileTypeName(*fileType) : QString();
        if (info.weightType.isEmpty())
            info.weightType = mostCommonMatrixType(gguf);
    } catch (const pyramid::Error& e) {
        // The reader's own words: it names the defect precisely, in English.
        info.problem = ModelFileInfo::tr("it is damaged: %1").arg(QString::fromUtf8(e.what()));
    }
}

void probeFolder(ModelFileInfo& info)
{
    const QDir dir(info.path);
    info.bytes = 0;
    for (const QFileInfo& weights : dir.entryInfoList({QStringLiteral("*.safetensors")}, QDir::Files))
        info.bytes += weights.size();
    info.weightBytes = info.bytes;
    QFile config(dir.filePath(QStringLiteral("config.json")));
    if (!config.open(QIODevice::ReadOnly)) {
        info.problem = ModelFileInfo::tr("its config.json cannot be read (%1)").arg(config.errorString());
        return;
    }
    const QJsonObject root = QJsonDocument::fromJson(config.read(1 << 20)).object();
    info.layers = std::max(0, root.value(QStringLiteral("num_hidden_layers")).toInt());
    info.contextLength = std::max(0, root.value(QStringLiteral("max_position_embeddings")).toInt());
    const int dim = root.value(QStringLiteral("hidden_size")).toInt();
    const int heads = root.value(QStringLiteral("num_attention_heads")).toInt();
    const int kvHeads = root.value(QStringLiteral("num_key_value_heads")).toInt(heads);
    if (dim > 0 && heads > 0 && kvHeads > 0) {
        info.headDim = dim / heads;
        info.kvHeads = kvHeads;
    }
    const QString dtype = root.value(QStringLiteral("torch_dtype")).toString();
    info.weightType = dtype == QLatin1String("float16") ? QStringLiteral("F16")
                      : dtype == QLatin1String("bfloat16") ? QStringLiteral("BF16")
                      : dtype == QLatin1String("float32") ? QStringLiteral("F32")
                                                          : QString();
}

} // namespace

QString ModelFileInfo::summary() const
{
    const QLocale locale;
    QStringList parts{locale.formattedDataSize(bytes)};
    if (!weightType.isEmpty())
        parts.push_back(weightType);
    if (layers > 0)
        parts.push_back(tr("%n layer(s)", nullptr, layers));
    if (contextLength > 0)
        parts.push_back(tr("%1 positions").arg(locale.toString(contextLength)));
    return parts.join(tr(" · ", "between the facts of a model"));
}

namespace {

// One layer's key and value of one token as `types` store them; 0 when they cannot.
qint64 entryBytes(const ModelFileInfo& info, pyramid::KvTypes types)
{
    if (info.kvHeads <= 0 || info.headDim <= 0 || info.layers <= 0 || info.contextLength <= 0)
        return 0;
    try {
        return qint64(pyramid::kv_entry_bytes(types, info.kvHeads, info.headDim));
    } catch (const pyramid::Error&) {
        return 0;  // a quantized type on heads it does not fit: the load will say so
    }
}

} // namespace

qint64 ModelFileInfo::fullKvBytes(pyramid::KvTypes types) const
{
    return qint64(layers) * contextLength * entryBytes(*this, types);
}

qint64 ModelFileInfo::pyramidKvBytes(const pyramid::PyramidSettings& pyramid, pyramid::KvTypes types) const
{
    const qint64 perEntry = entryBytes(*this, types);
    if (perEntry == 0)
        return 0;
    qint64 entries = 0;
    try {
        for (int length : pyramid::plan_pyramid_lengths(pyramid, layers, contextLength, 0).after_prefill)
            entries += length;
    } catch (const pyramid::Error&) {
        return 0;  // settings the schedule refuses: no estimate rather than a wrong one
    }
    return entries * perEntry;
}

QString ModelFileInfo::memoryText(const pyramid::PyramidSettings& pyramid, pyramid::KvTypes types) const
{
    const qint64 full = fullKvBytes(types);
    const qint64 compressed = pyramidKvBytes(pyramid, types);
    if (full == 0 || compressed == 0)
        return {};
    const QLocale locale;
    return tr("About %1: weights %2, KV cache %3 at %4 positions (%5 with PyramidInfer)")
        .arg(locale.formattedDataSize(weightBytes + compressed), locale.formattedDataSize(weightBytes),
             locale.formattedDataSize(full), locale.toString(contextLength), locale.formattedDataSize(compressed));
}

ModelFileInfo probeModelFile(const QString& path)
{
    ModelFileInfo info;
    info.path = path;
    const QFileInfo file(path);
    info.bytes = file.size();
    if (file.isDir())
        probeFolder(info);
    else if (!file.isFile())  // a FIFO or a device would block the read
        info.problem = ModelFileInfo::tr("it is not a regular file");
    else
        probeGguf(info);
    return info;
}
