#pragma once
// Tests of load_model_files and the readers below it. The slots are split over two files:
// loader_valid_test.cpp (real models load correctly and agree across formats) and
// loader_malformed_test.cpp (every kind of broken input is rejected with pyramid::Error).
#include <QObject>
#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <string>

#include "model/model_loader.h"
#include "util/error.h"

namespace pyramid::test {

inline std::filesystem::path write_file(const std::filesystem::path& path, const std::string& bytes)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

inline std::string read_file(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What happened when a path was loaded: it loaded, or threw pyramid::Error (the expected way
// to fail), or threw something else (always a bug).
struct LoadOutcome {
    enum Kind { Loaded, PyramidError, OtherException } kind = Loaded;
    std::string message;

    bool rejected() const { return kind == PyramidError; }
    bool rejected_with(const std::string& fragment) const
    {
        return kind == PyramidError && message.find(fragment) != std::string::npos;
    }
    std::string describe() const
    {
        return kind == Loaded ? "loaded without error" : (kind == OtherException ? "unexpected exception: " : "") + message;
    }
};

template <typename F>
LoadOutcome outcome_of(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return {LoadOutcome::PyramidError, e.what()};
    } catch (const std::exception& e) {
        return {LoadOutcome::OtherException, e.what()};
    }
    return {};
}

inline LoadOutcome load_outcome(const std::filesystem::path& path)
{
    return outcome_of([&] { load_model_files(path); });
}

} // namespace pyramid::test

class ModelLoaderTest : public QObject {
    Q_OBJECT

private slots:
    // loader_valid_test.cpp
    void storiesGguf();
    void storiesHuggingFace_data();
    void storiesHuggingFace();
    void ggufAndHuggingFaceF32Agree();
    void huggingFaceF16IsRoundedF32();
    void queryKeyRowsArePermutedRotateHalf();
    void kquantsEveryTensorBitExact_data();
    void kquantsEveryTensorBitExact();
    void kquantsVocabulary();
    void vocabOnlyGguf();
    void ggufEveryValueType();
    void progressReported();
    void shardedHuggingFaceFolder();
    void tiedEmbeddings();
    void unalignedSafetensorsData();
    void nonF32NormsConverted();

    // loader_malformed_test.cpp
    void ggufTruncatedEverywhere();
    void ggufMalformed_data();
    void ggufMalformed();
    void ggufRandomCorruption();
    void safetensorsMalformed_data();
    void safetensorsMalformed();
    void huggingFaceFolderMalformed();
    void safetensorsTruncatedAndCorrupted();

private:
    QTemporaryDir dir_;
};
