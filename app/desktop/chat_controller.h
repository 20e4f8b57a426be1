#pragma once
// Runs the conversation: sends the user's turn to the engine on a worker thread, streams the
// reply into the MessageListModel and the statistics into the CacheStatsModel, and stores
// each message in the ChatStore once it is complete (a stopped reply is stored as stopped,
// also when the app quits mid-reply). A store that fails to read or write says so as the error.
// What the engine did to fit the conversation comes back as a notice stored with the reply;
// a full context that refuses the turn or cuts the reply off is shown as an error that says
// what to change.
//
// The UI thread never waits on the engine: requests are posted to the worker, results come
// back as queued signals, and stop() only sets an atomic flag the engine polls. One reply
// runs at a time; loading a model queues behind it on the same thread.
//
// A reply goes on when the user shows another conversation (busyElsewhere says so there, and
// nothing can be sent until it ends); showing its conversation again shows it streaming. Each
// conversation keeps the text typed but not sent (draft), stored with it in the ChatStore a
// moment after the typing stops (kDraftSaveDelayMs), when another conversation is shown and
// when the app quits, so it is there again after a restart. The
// live panel shows the cache of the conversation on screen: the reply running there, else the
// last reply's numbers, kept in the ChatStore so they survive a restart.
#include <QHash>
#include <QObject>
#include <QSet>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <memory>
#include <optional>

#include "chat/chat_engine.h"
#include "stored_message.h"

class CacheStatsModel;
class ChatStore;
class ConversationListModel;
class EngineWorker;
class MessageListModel;
class SettingsModel;

class ChatController : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    // A reply runs for a conversation other than the one on screen.
    Q_PROPERTY(bool busyElsewhere READ busyElsewhere NOTIFY busyChanged)
    Q_PROPERTY(QString draft READ draft WRITE setDraft NOTIFY draftChanged)  // of the one on screen
    // Empty, or a warning that the draft may not fit the context with room for the reply, and
    // what "When the context is full" will then do.
    Q_PROPERTY(QString contextWarning READ contextWarning NOTIFY contextWarningChanged)
    Q_PROPERTY(bool canSend READ canSend NOTIFY actionsChanged)
    Q_PROPERTY(bool canRegenerate READ canRegenerate NOTIFY actionsChanged)
    Q_PROPERTY(bool canEditLast READ canEditLast NOTIFY actionsChanged)
    Q_PROPERTY(bool editing READ editing NOTIFY editingChanged)
    Q_PROPERTY(QString editedText READ editedText NOTIFY editingChanged)  // the message's text when begun
    Q_PROPERTY(QString lastUserText READ lastUserText NOTIFY actionsChanged)
    Q_PROPERTY(QString error READ error NOTIFY errorChanged)

public:
    ChatController(std::unique_ptr<pyramid::ChatEngine> engine, ChatStore& store,
                   ConversationListModel& conversations, MessageListModel& messages, SettingsModel& settings,
                   CacheStatsModel& stats, QObject* parent = nullptr);
    ~ChatController() override;  // cancels what runs and joins the worker thread

    bool busy() const { return busy_; }
    bool busyElsewhere() const;
    QString draft() const;
    void setDraft(const QString& text);
    QString contextWarning() const;
    bool canSend() const { return !busy_ && !loading_ && hasModel_; }
    bool canRegenerate() const;
    bool canEditLast() const;
    QString lastUserText() const;
    bool editing() const { return editedMessage_ != 0; }
    QString editedText() const { return editedText_; }
    bool canEdit(int row) const;  // a question of the conversation on screen, while nothing runs
    QString error() const { return error_; }
    static constexpr int kDraftSaveDelayMs = 1000;
    // The line under a reply that says what the engine did to fit the context, in the user's language.
    static QString noticeText(const pyramid::ContextNotice& notice);

    // Each returns false (and changes nothing) when it cannot start a reply now.
    Q_INVOKABLE bool send(const QString& text);
    // Replaces the last reply; the old one stays stored until the new one has text, and then
    // as an earlier version of it.
    Q_INVOKABLE bool regenerate();
    // Shows the version `step` places older (negative) or newer of the message at `row`: of
    // the last reply (the next turn answers the one shown; the turns after an earlier reply
    // were answered to the version they saw), or of any question, shown with the branch of
    // the conversation that followed it. Not while a reply runs.
    Q_INVOKABLE bool showVersion(int row, int step);
    // Editing a user message (`row`; -1: the last one): begun for the conversation on screen
    // and ended by showing another one or another version, so an edit can never rewrite a
    // conversation it was not begun in. Resending forks the conversation there: the edited
    // text becomes the message's newest version and is answered; what followed the earlier
    // text stays with it, shown again with ‹ › on the message (ChatStore::forkFrom).
    Q_INVOKABLE bool beginEdit(int row = -1);
    Q_INVOKABLE void cancelEdit();
    Q_INVOKABLE bool editAndResend(const QString& text);
    // Deletes one message of the conversation on screen (a question, or a reply), stored and
    // shown; the next turn reads the conversation as it is then. Not while a reply runs.
    Q_INVOKABLE bool deleteMessage(int row);
    Q_INVOKABLE void stop();
    Q_INVOKABLE void clearError();

    // For ModelManager: loads on the worker thread; the result comes back as a signal.
    void loadModel(const QString& path);
    // `anotherFollows`: a model opens next, so a model let go for this load is not reopened;
    // without it the open model is kept (reopened if it was let go).
    void cancelLoad(bool anotherFollows = false);

signals:
    void busyChanged();
    void draftChanged();
    void contextWarningChanged();
    // Another conversation is on screen, its messages, draft and panel shown. The composer
    // takes its draft from here: QML handlers of ConversationListModel::currentIdChanged run
    // before this controller has shown the conversation.
    void conversationShown();
    void actionsChanged();
    void editingChanged();
    void errorChanged();
    void replyFinished();  // a turn ended, for any reason, and was stored
    void modelLoadProgress(double fraction);
    void modelLoaded(const pyramid::ModelInfo& info);
    void modelLoadFailed(const QString& message, bool modelKept);

private:
    void showCurrentConversation();
    void saveDrafts();  // the drafts changed since they were last stored
    int editingRow() const;  // of the message being edited; -1: none shown
    // `replacing`: the stored reply this one regenerates (id 0: none).
    void startReply(const StoredMessage& replacing = {});
    void onReplyText(quint64 turn, const QString& text);
    void onReplyStats(quint64 turn, const pyramid::GenerationStats& stats);
    void onReplyFinished(quint64 turn, const pyramid::ChatResult& result);
    // The panel for the conversation on screen when no reply of its own has reported yet.
    void showStoredStats(qint64 conversation);
    // Asks the worker for the GPU memory now, for the panel while no reply runs.
    void readDeviceMemory();
    // What a ContextFull reply tells the user, with what to do about it under `overflow`.
    static QString contextFullMessage(const pyramid::ChatResult& result, pyramid::OverflowPolicy overflow);
    void setBusy(bool busy);
    void setLoading(bool loading);
    void setError(const QString& error);

    std::unique_ptr<pyramid::ChatEngine> engine_;
    ChatStore& store_;
    ConversationListModel& conversations_;
    MessageListModel& messages_;
    SettingsModel& settings_;
    CacheStatsModel& stats_;

    std::atomic<bool> cancelReply_{false};
    std::atomic<bool> cancelLoad_{false};
    std::atomic<bool> noReopen_{false};  // with cancelLoad_: the previous model is not wanted back
    QThread thread_;
    std::unique_ptr<EngineWorker> worker_;  // lives on thread_

    quint64 turn_ = 0;               // the reply in flight (or the last one)
    StoredMessage replaced_;         // the reply the one in flight regenerates (id 0: none)
    qint64 editedMessage_ = 0;       // the user message being edited (0: none)
    QString editedText_;             // its text when the edit began
    qint64 replyConversation_ = 0;   // where that reply is stored
    QString replyText_;              // what that reply has said so far, for showing it again
    std::optional<pyramid::GenerationStats> replyStats_;  // its latest statistics
    QHash<qint64, QString> drafts_;  // unsent text by conversation, as read from the store or typed since
    QSet<qint64> unsavedDrafts_;     // conversations whose draft changed since it was stored
    QTimer saveDrafts_;
    pyramid::OverflowPolicy replyOverflow_ = pyramid::OverflowPolicy::Stop;  // what that reply ran with
    bool busy_ = false;
    bool loading_ = false;
    bool hasModel_ = false;
    bool deviceMemoryPending_ = false;  // a readDeviceMemory has not been answered yet
    QString error_;
};
