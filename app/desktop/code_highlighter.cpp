#include "code_highlighter.h"

#include <srchilite/formatter.h>
#include <srchilite/formattermanager.h>
#include <srchilite/langdefmanager.h>
#include <srchilite/langmap.h>
#include <srchilite/regexrulefactory.h>
#include <srchilite/settings.h>
#include <srchilite/sourcehighlighter.h>

#include <QHash>
#include <QStringList>
#include <exception>

namespace {

using Category = CodeHighlighter::Category;

// The library's element names (its default.style lists them) by the colour they get.
const QHash<QString, Category>& categoryOfElement()
{
    static const QHash<QString, Category> table{
        {"keyword", Category::Keyword},    {"preproc", Category::Keyword},   {"predef_func", Category::Keyword},
        {"label", Category::Keyword},      {"selector", Category::Keyword},  {"type", Category::Type},
        {"usertype", Category::Type},      {"classname", Category::Type},    {"property", Category::Type},
        {"string", Category::String},      {"regexp", Category::String},     {"specialchar", Category::String},
        {"value", Category::String},       {"url", Category::String},        {"path", Category::String},
        {"comment", Category::Comment},    {"todo", Category::Comment},      {"number", Category::Number},
        {"atom", Category::Number},        {"function", Category::Function}, {"predef_var", Category::Function},
        {"variable", Category::Function},
    };
    return table;
}

// Fence names the library's lang.map lacks, for languages it has.
const QHash<QString, QString>& languageAliases()
{
    static const QHash<QString, QString> table{
        {"c++", "cpp"}, {"rust", "rs"}, {"golang", "go"},
    };
    return table;
}

// Hands each piece of one element to the highlighter's list, with its category.
class PieceFormatter : public srchilite::Formatter {
public:
    PieceFormatter(std::vector<CodeHighlighter::Piece>& pieces, Category category)
        : pieces_(pieces), category_(category) {}

    void format(const std::string& text, const srchilite::FormatterParams*) override
    {
        if (!text.empty())
            pieces_.push_back({category_, text});
    }

private:
    std::vector<CodeHighlighter::Piece>& pieces_;
    Category category_;
};

QString htmlOf(const std::vector<CodeHighlighter::Piece>& pieces, bool dark)
{
    // pre-wrap: the code's spaces and line breaks as typed, long lines still wrapped to the view.
    QString html = QStringLiteral("<div style=\"white-space: pre-wrap\">");
    for (const CodeHighlighter::Piece& piece : pieces) {
        const QString text = QString::fromStdString(piece.text).toHtmlEscaped();
        if (piece.category == Category::Plain)
            html += text;
        else
            html += QStringLiteral("<span style=\"color:%1\">%2</span>")
                        .arg(CodeHighlighter::colour(piece.category, dark).name(), text);
    }
    return html + QStringLiteral("</div>");
}

} // namespace

CodeHighlighter::CodeHighlighter(const QString& dataDir)
    : dataDir_(dataDir.isEmpty() ? srchilite::Settings::retrieveDataDir() : dataDir.toStdString()),
      ruleFactory_(std::make_unique<srchilite::RegexRuleFactory>()),
      langDefs_(std::make_unique<srchilite::LangDefManager>(ruleFactory_.get())),
      langMap_(std::make_unique<srchilite::LangMap>(dataDir_, "lang.map")),
      formatters_(std::make_unique<srchilite::FormatterManager>(
          srchilite::FormatterPtr(new PieceFormatter(pieces_, Category::Plain))))
{
    for (auto it = categoryOfElement().cbegin(); it != categoryOfElement().cend(); ++it)
        formatters_->addFormatter(it.key().toStdString(),
                                  srchilite::FormatterPtr(new PieceFormatter(pieces_, it.value())));
}

CodeHighlighter::~CodeHighlighter() = default;

std::string CodeHighlighter::langFileOf(const QString& language)
{
    QString name = language.trimmed().section(QLatin1Char(' '), 0, 0).toLower();
    if (name.startsWith(QLatin1Char('.')))  // "{.python}" style is not handled; ".py" is a file name
        name.remove(0, 1);
    name = languageAliases().value(name, name);
    if (name.isEmpty())
        return {};
    return langMap_->getMappedFileName(name.toStdString());
}

CodeHighlighter::Html CodeHighlighter::highlight(const QString& code, const QString& language)
{
    // The library throws for a lang.map or a language definition it cannot read or parse:
    // the code then shows plain, as for a language it does not know.
    try {
        const std::string langFile = langFileOf(language);
        if (langFile.empty())
            return {};
        srchilite::SourceHighlighter highlighter(langDefs_->getHighlightState(dataDir_, langFile));
        highlighter.setFormatterManager(formatters_.get());
        highlighter.setOptimize(true);  // one piece per run of an element, not one per character
        pieces_.clear();
        const QStringList lines = code.split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < lines.size(); ++i) {
            highlighter.highlightParagraph(lines[i].toStdString());
            if (i + 1 < lines.size())
                pieces_.push_back({Category::Plain, "\n"});
        }
        Html html{htmlOf(pieces_, false), htmlOf(pieces_, true)};
        pieces_.clear();
        return html;
    } catch (const std::exception&) {
        pieces_.clear();
        return {};
    }
}

QColor CodeHighlighter::colour(Category category, bool dark)
{
    switch (category) {
    case Category::Plain: return {};
    case Category::Keyword: return dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x0b, 0x4f, 0xb3);
    case Category::Type: return dark ? QColor(0x4f, 0xd1, 0xc5) : QColor(0x00, 0x6a, 0x6a);
    case Category::String: return dark ? QColor(0xf0, 0xa2, 0x7a) : QColor(0xa3, 0x15, 0x15);
    case Category::Comment: return dark ? QColor(0x9a, 0xa6, 0x9a) : QColor(0x5e, 0x6a, 0x5e);
    case Category::Number: return dark ? QColor(0xd3, 0xa6, 0xff) : QColor(0x7b, 0x2f, 0xa8);
    case Category::Function: return dark ? QColor(0xe5, 0xc0, 0x7b) : QColor(0x7a, 0x4d, 0x00);
    }
    return {};
}
