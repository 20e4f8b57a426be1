#pragma once
// One message's segments (markdown_segments.h) as the list model the chat view repeats over.
// New text changes only the segments that differ: while a reply streams in, the segments above
// the growing one keep their delegates, layout and selection, and their prose is not rendered
// again, so each streamed piece costs the last segment, not the whole reply. The growing last
// segment is rendered again at most once per kRenderSpacing times what its last rendering
// took (a long paragraph costs tens of milliseconds), so streaming leaves the UI thread
// mostly free; its latest text is always rendered soon after. Code blocks are coloured by
// the message list's CodeHighlighter, for a light and a dark background.
#include <QAbstractListModel>
#include <QElapsedTimer>
#include <QTimer>
#include <QVector>

#include "markdown_segments.h"

class CodeHighlighter;

class SegmentListModel : public QAbstractListModel {
    Q_OBJECT

public:
    enum Role {
        CodeRole = Qt::UserRole + 1,  // a fenced code block
        QuoteRole,                    // a block quote (a reply's only), drawn with a bar
        TextRole,                     // prose as written, or the code
        LanguageRole,                 // the fence's info string
        HtmlRole,                     // prose or a quote rendered safely (markdown_html.h); empty as typed
        CodeLightRole,                // code coloured for a light background (code_highlighter.h);
                                      // empty: a language not known, shown plain
        CodeDarkRole,                 // the same for a dark background
    };

    // `rendered`: prose is Markdown to render (a reply), else shown as typed (a user's message,
    // whose quotes stay in its text).
    // `highlighter` colours the code blocks (null: none), and must outlive this model.
    explicit SegmentListModel(bool rendered, CodeHighlighter* highlighter = nullptr, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setText(const QString& text);

    int renderCount() const { return renders_; }  // prose renderings so far (for tests)

    static constexpr int kRenderSpacing = 5;

private:
    struct Item {
        MarkdownSegment segment;
        QString html;
        QString codeLight, codeDark;
        bool stale = false;  // html is of an earlier text of the segment
    };
    Item makeItem(const MarkdownSegment& segment);
    QString render(const QString& markdown);
    void renderStale(qsizetype row);

    bool rendered_;
    CodeHighlighter* highlighter_;
    QVector<Item> items_;
    QElapsedTimer sinceRender_;
    qint64 renderNs_ = 0;  // what the last rendering took
    int renders_ = 0;
    QTimer renderLater_;   // renders the last segment once its turn comes
};
