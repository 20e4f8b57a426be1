#pragma once
// Fenced code as coloured HTML for the chat view. GNU Source-highlight (libsource-highlight)
// splits the code into the elements its language definition names (keyword, type, string,
// comment, number, function, ...), read from its data folder (/usr/share/source-highlight);
// each element gets a colour of a small scheme, one for light and one for dark backgrounds,
// each at WCAG AA contrast (4.5:1) on the code block's background in the app's light and dark
// themes. The view picks the scheme by its palette, so a theme change recolours the code at
// once without highlighting it again. A language the library does not know, or no language,
// gives no HTML: the view shows the code plain, in monospace.
//
// One highlighter per message list (not thread-safe): the library caches each language's
// definition after its first use.
#include <QColor>
#include <QString>
#include <memory>
#include <string>
#include <vector>

namespace srchilite {
class FormatterManager;
class LangDefManager;
class LangMap;
class RegexRuleFactory;
} // namespace srchilite

class CodeHighlighter {
public:
    // What an element of the code is, as far as its colour goes.
    enum class Category { Plain, Keyword, Type, String, Comment, Number, Function };

    struct Html {
        QString light;  // for a light background; empty: the language is not known
        QString dark;   // for a dark background
    };

    // `dataDir`: the folder with lang.map and the *.lang files; empty: the library's own.
    explicit CodeHighlighter(const QString& dataDir = {});
    ~CodeHighlighter();
    CodeHighlighter(const CodeHighlighter&) = delete;
    CodeHighlighter& operator=(const CodeHighlighter&) = delete;

    // `language`: a fence's info string ("python", "c++", "rs {.numbered}"); its first word
    // counts, in any case.
    Html highlight(const QString& code, const QString& language);

    // The colour of `category` on a light or a dark background (Plain: none, the text's own).
    static QColor colour(Category category, bool dark);

    // The pieces the library's formatters hand over, in order.
    struct Piece {
        Category category;
        std::string text;
    };

private:
    std::string langFileOf(const QString& language);

    std::string dataDir_;
    std::unique_ptr<srchilite::RegexRuleFactory> ruleFactory_;
    std::unique_ptr<srchilite::LangDefManager> langDefs_;
    std::unique_ptr<srchilite::LangMap> langMap_;
    std::unique_ptr<srchilite::FormatterManager> formatters_;
    std::vector<Piece> pieces_;
};
