#include "chat_controller.h"

#include <QCoreApplication>
#include <QLocale>
#include <algorithm>
#include <utility>

#include "cache_stats_model.h"
#include "chat_store.h"
#include "conversation_list_model.h"
#include "engine_worker.h"
#include "message_list_model.h"
#include "settings_model.h"
#include "stats_snapshot.h"

using pyramid::ChatRole;
using pyramid::FinishReason;
using pyramid::OverflowPolicy;


ChatController::ChatController(std::unique_ptr<pyramid::ChatEngine> engine, ChatStore& store,
                               ConversationListModel& conversations, MessageListModel& messages,
                               SettingsModel& settings, CacheStatsModel& stats, QObject* parent)
    : QObject(parent),
      engine_(std::move(engine)),
      store_(store),
      conversations_(conversations),
      messages_(messages),
      settings_(settings),
      stats_(stats),
      worker_(std::make_unique<EngineWorker>(*engine_, cancelReply_, cancelLoad_, noReopen_))
{
    thread_.setObjectName(QStringLiteral("engine"));
    worker_->moveToThread(&thread_);
    connect(worker_.get(), &EngineWorker::replyText, this, &ChatController::onReplyText);
    connect(worker_.get(), &EngineWorker::replyStats, this, &ChatController::onReplyStats);
    connect(worker_.get(), &EngineWorker::replyFinished, this, &ChatController::onReplyFinished);
    connect(worker_.get(), &EngineWorker::loadProgress, this, &ChatController::modelLoadProgress);
    connect(worker_.get(), &EngineWorker::loaded, this, [this](const pyramid::ModelInfo& info) {
        hasModel_ = true;
        // The last reply's live numbers belong to the previous model; the conversation's
        // stored ones stay (the app opens a model at every start).
        stats_.clear();
        showStoredStats(conversations_.currentId());
        setLoading(false);
        readDeviceMemory();  // the GPU's memory with the model in it, before any reply
        emit modelLoaded(info);
    });
    connect(worker_.get(), &EngineWorker::loadFailed, this, [this](const QString& message, bool modelKept) {
        // An engine may let the previous model go to make room, and fail to open it again.
        if (!modelKept) {
            hasModel_ = false;
            stats_.clear();
        }
        setLoading(false);
        readDeviceMemory();
        emit modelLoadFailed(message, modelKept);
    });
    connect(worker_.get(), &EngineWorker::deviceMemoryRead, this,
            [this](const std::optional<pyramid::DeviceMemory>& memory) {
                deviceMemoryPending_ = false;
                stats_.setDeviceMemory(memory);
            });
    connect(&stats_, &CacheStatsModel::deviceMemoryWanted, this, &ChatController::readDeviceMemory);
    thread_.start();

    store_.setFailureHandler([this](const QString& message) {
        setError(tr("The chat history could not be read or saved (%1).").arg(message));
    });
    saveDrafts_.setSingleShot(true);
    saveDrafts_.setInterval(kDraftSaveDelayMs);
    connect(&saveDrafts_, &QTimer::timeout, this, &ChatController::saveDrafts);
    connect(&conversations_, &ConversationListModel::currentIdChanged, this, &ChatController::showCurrentConversation);
    // The warning depends on the draft, the context the panel shows and the settings.
    connect(this, &ChatController::draftChanged, this, &ChatController::contextWarningChanged);
    connect(&stats_, &CacheStatsModel::changed, this, &ChatController::contextWarningChanged);
    connect(&settings_, &QAbstractItemModel::dataChanged, this, &ChatController::contextWarningChanged);
    connect(&messages_, &MessageListModel::countChanged, this, &ChatController::actionsChanged);
    showCurrentConversation();
}

ChatController::~ChatController()
{
    cancelReply_ = true;
    cancelLoad_ = true;
    noReopen_ = true;
    thread_.quit();
    thread_.wait();
    // The cancelled reply's result is still queued for this object: store it, as Stop would.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    saveDrafts();
    store_.setFailureHandler({});
}

bool ChatController::canRegenerate() const { return canSend() && messages_.count() > 0; }

bool ChatController::canEditLast() const { return canSend() && messages_.lastRow(ChatRole::User) >= 0; }

QString ChatController::lastUserText() const
{
    const int row = messages_.lastRow(ChatRole::User);
    return row < 0 ? QString() : messages_.at(row).text;
}

void ChatController::showCurrentConversation()
{
    // A reply runs on in its own conversation; an edit belongs to the one it was begun in.
    cancelEdit();
    saveDrafts();
    const qint64 id = conversations_.currentId();
    if (!drafts_.contains(id))
        drafts_.insert(id, store_.draft(id));
    QVector<StoredMessage> stored = store_.messages(id);
    const bool replyHere = busy_ && id == replyConversation_;
    if (replyHere && replaced_.id != 0)  // the reply being regenerated, stored until the new one is
        stored.removeIf([this](const StoredMessage& m) { return m.id == replaced_.id; });
    messages_.setConversation(id, stored);
    if (replyHere) {
        messages_.beginReply();
        if (!replyText_.isEmpty())
            messages_.appendReplyText(replyText_);
    }
    stats_.clear();
    if (replyHere && replyStats_)
        stats_.update(*replyStats_);
    else if (replyHere)
        stats_.beginReply();
    else
        showStoredStats(id);
    settings_.setConversation(id);
    emit busyChanged();  // busyElsewhere
    emit draftChanged();
    emit actionsChanged();
    emit conversationShown();
}

void ChatController::showStoredStats(qint64 conversation)
{
    if (const auto snapshot = statsSnapshotFromJson(store_.lastReplyStats(conversation)))
        stats_.restore(*snapshot);
}

bool ChatController::busyElsewhere() const { return busy_ && replyConversation_ != messages_.conversationId(); }

QString ChatController::draft() const { return drafts_.value(messages_.conversationId()); }

void ChatController::setDraft(const QString& text)
{
    const qint64 id = messages_.conversationId();
    if (text == drafts_.value(id))
        return;
    drafts_.insert(id, text);
    unsavedDrafts_.insert(id);
    saveDrafts_.start();
    emit draftChanged();
}

void ChatController::saveDrafts()
{
    saveDrafts_.stop();
    for (const qint64 id : std::exchange(unsavedDrafts_, {}))
        if (store_.conversation(id))  // a conversation deleted for good has no place for it
            store_.setDraft(id, drafts_.value(id));
}

QString ChatController::contextWarning() const
{
    const QString text = draft().trimmed();
    const int context = stats_.contextLength();
    if (text.isEmpty() || context <= 0)
        return {};
    // No tokenizer runs on this thread: a UTF-8 byte count over three is at least the tokens
    // of English text (about four bytes each) and near them for CJK text (three bytes a
    // character, a token or so each). A warning, not a refusal: the engine decides.
    const int tokens = int((text.toUtf8().size() + 2) / 3);
    const int room = context - stats_.positionsUsed() - settings_.current().maxNewTokens;
    if (tokens <= room)
        return {};
    const QLocale locale;
    const QModelIndex overflow = settings_.index(settings_.rowOf(QStringLiteral("overflow")));
    const QString policy = settings_.data(overflow, SettingsModel::ChoiceLabelsRole)
                               .toStringList()
                               .value(settings_.data(overflow, SettingsModel::ChoiceIndexRole).toInt());
    return tr("This message may not fit: it takes about %1 tokens, and %2 of the context's %3 positions are left once "
              "the reply has room. When the context is full: %4.")
        .arg(locale.toString(tokens), locale.toString(std::max(0, room)), locale.toString(context), policy);
}

bool ChatController::send(const QString& text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty() || busy_ || loading_)
        return false;
    if (!hasModel_) {
        setError(tr("Open a model before sending a message."));
        return false;
    }
    const qint64 conversation = conversations_.currentId();
    StoredMessage message;
    message.role = ChatRole::User;
    message.text = trimmed;
    message.createdAt = QDateTime::currentDateTime();
    message.id = store_.addMessage(conversation, message);
    if (message.id == 0)
        return false;  // not saved: the text stays in the composer and the error says why
    setDraft({});
    messages_.append(message);
    conversations_.nameAfterFirstMessage(conversation, trimmed);
    conversations_.refresh();
    startReply();
    return true;
}

bool ChatController::regenerate()
{
    if (!canRegenerate())
        return false;
    const int last = messages_.count() - 1;
    StoredMessage replaced;
    if (messages_.at(last).role == ChatRole::Assistant) {
        if (last == 0)
            return false;  // a reply with no question before it: nothing to answer again
        replaced = messages_.at(last);  // deleted from the store once the new reply is stored
        messages_.removeFrom(last);
    }
    startReply(replaced);
    return true;
}

bool ChatController::canEdit(int row) const
{
    return canSend() && row >= 0 && row < messages_.count() && messages_.at(row).role == ChatRole::User;
}

bool ChatController::beginEdit(int row)
{
    if (row < 0)
        row = messages_.lastRow(ChatRole::User);
    if (!canEdit(row))
        return false;
    editedMessage_ = messages_.at(row).id;
    editedText_ = messages_.at(row).text;
    emit editingChanged();
    return true;
}

void ChatController::cancelEdit()
{
    if (editedMessage_ == 0)
        return;
    editedMessage_ = 0;
    editedText_.clear();
    emit editingChanged();
}

int ChatController::editingRow() const
{
    for (int row = 0; row < messages_.count(); ++row)
        if (messages_.at(row).id == editedMessage_)
            return row;
    return -1;
}

bool ChatController::editAndResend(const QString& text)
{
    const QString trimmed = text.trimmed();
    const int row = editingRow();
    if (trimmed.isEmpty() || editedMessage_ == 0 || !canEdit(row))
        return false;
    StoredMessage edited;
    edited.role = ChatRole::User;
    edited.text = trimmed;
    edited.createdAt = QDateTime::currentDateTime();
    edited.id = store_.forkFrom(editedMessage_, edited);
    if (edited.id == 0)
        return false;  // the failure is shown; the text stays in the composer
    edited.versionCount = messages_.at(row).versionCount + 1;
    edited.versionIndex = edited.versionCount - 1;  // the newest
    cancelEdit();
    messages_.removeFrom(row);
    messages_.append(edited);
    conversations_.refresh();
    startReply();
    return true;
}

void ChatController::startReply(const StoredMessage& replacing)
{
    replaced_ = replacing;
    // The settings are read now: edits made while this reply runs apply to the next turn.
    const ChatSettings& settings = settings_.current();
    pyramid::ChatRequest request;
    request.conversation.system_prompt = settings_.systemPrompt().toStdString();
    for (int row = 0; row < messages_.count(); ++row)
        request.conversation.messages.push_back({messages_.at(row).role, messages_.at(row).text.toStdString()});
    request.format = settings_.promptFormat();
    request.sampling = settings.sampling;
    request.compression = settings.compression;
    request.max_new_tokens = settings.maxNewTokens;
    request.context_mode = settings.contextMode;
    request.overflow = settings.overflow;
    replyOverflow_ = settings.overflow;

    clearError();
    cancelReply_ = false;
    const quint64 turn = ++turn_;
    replyConversation_ = messages_.conversationId();
    replyText_.clear();
    replyStats_.reset();
    messages_.beginReply();
    stats_.beginReply();
    setBusy(true);
    EngineWorker* worker = worker_.get();
    QMetaObject::invokeMethod(worker, [worker, turn, request] { worker->reply(turn, request); }, Qt::QueuedConnection);
}

bool ChatController::showVersion(int row, int step)
{
    if (busy_ || row < 0 || row >= messages_.count())
        return false;
    // A question's versions bring their branches along; a reply's are only for the last one.
    if (messages_.at(row).role == ChatRole::Assistant && row != messages_.count() - 1)
        return false;
    const qint64 shown = messages_.at(row).id;
    const QVector<qint64> versions = store_.versionIds(shown);
    const qsizetype wanted = versions.indexOf(shown) + step;
    if (wanted < 0 || wanted >= versions.size() || step == 0)
        return false;
    if (!store_.showVersion(shown, versions.at(wanted)))
        return false;  // the failure is shown; the reply stays as it was
    cancelEdit();  // the message edited may have gone with its branch
    const qint64 conversation = messages_.conversationId();
    messages_.setConversation(conversation, store_.messages(conversation));
    emit actionsChanged();
    return true;
}

bool ChatController::deleteMessage(int row)
{
    if (busy_ || row < 0 || row >= messages_.count())
        return false;
    const qint64 id = messages_.at(row).id;
    if (id == editedMessage_)
        cancelEdit();
    if (!store_.deleteMessage(id))
        return false;  // the failure is shown; the message stays
    messages_.removeAt(row);
    conversations_.refresh();
    emit actionsChanged();
    return true;
}

void ChatController::stop()
{
    if (busy_)
        cancelReply_ = true;
}

void ChatController::onReplyText(quint64 turn, const QString& text)
{
    if (turn != turn_)
        return;
    replyText_ += text;
    if (messages_.conversationId() == replyConversation_)
        messages_.appendReplyText(text);
}

void ChatController::onReplyStats(quint64 turn, const pyramid::GenerationStats& stats)
{
    if (turn != turn_)
        return;
    replyStats_ = stats;
    if (messages_.conversationId() == replyConversation_)
        stats_.update(stats);
}

void ChatController::onReplyFinished(quint64 turn, const pyramid::ChatResult& result)
{
    if (turn != turn_)
        return;
    const StoredMessage replaced = std::exchange(replaced_, {});
    // A reply that brought no text is not stored: a full context that refused the turn and a
    // failure before the first word say so as the error; a regenerated reply keeps the old one.
    // A reply cut off midway (stopped, out of KV memory, out of context) is kept, marked as such.
    // A conversation deleted for good while its reply stopped (deleting another one purges
    // the one deleted before) has nowhere to keep it.
    const bool keep = (!result.text.empty() || (replaced.id == 0 && result.reason != FinishReason::ContextFull &&
                                                result.reason != FinishReason::Error)) &&
                      store_.conversation(replyConversation_).has_value();
    StoredMessage reply;
    if (keep) {
        reply.role = ChatRole::Assistant;
        reply.text = QString::fromStdString(result.text);
        reply.finish = result.reason;
        reply.stats = messageStatsFrom(result);
        reply.notice = noticeText(result.notice);
        reply.createdAt = QDateTime::currentDateTime();
        reply.id = store_.addMessage(replyConversation_, reply);
        if (reply.id != 0 && replaced.id != 0 && store_.keepAsVersion(replaced.id, reply.id)) {
            reply.versionCount = replaced.versionCount + 1;
            reply.versionIndex = reply.versionCount - 1;  // the newest
        }
        conversations_.refresh();
    }
    // The panel shows these numbers again with the conversation, after a restart too; a reply
    // that failed before it had a cache leaves none to show (as on screen, below).
    if (store_.conversation(replyConversation_)) {
        if (!result.stats.layer_kv_lengths.empty())
            store_.setLastReplyStats(replyConversation_, statsSnapshotToJson(result.stats));
        else if (!result.shortfall)
            store_.setLastReplyStats(replyConversation_, {});
    }
    replyText_.clear();
    replyStats_.reset();
    // A reply finishing after the user moved on is stored (or not) in its own conversation:
    // the screen and the error line belong to the one shown.
    if (messages_.conversationId() == replyConversation_) {
        // A refused turn left the cache as the panel shows it. A reply that failed or stopped
        // before it had a cache leaves no numbers, not the previous reply's: the engine may
        // have let that cache go.
        if (!result.stats.layer_kv_lengths.empty())
            stats_.update(result.stats);
        else if (!result.shortfall)
            stats_.clear();
        else {
            stats_.clear();  // refused before reading: the cache is as the last reply left it
            showStoredStats(replyConversation_);
        }
        if (!messages_.streaming()) {
            // Shown again while the reply finished in the background: show what is stored.
            messages_.setConversation(replyConversation_, store_.messages(replyConversation_));
        } else if (keep) {
            messages_.finishReply(reply);
        } else {
            messages_.discardReply();
            if (replaced.id != 0)
                messages_.append(replaced);
        }
        if (result.reason == FinishReason::ContextFull)
            setError(contextFullMessage(result, replyOverflow_));
        else if (result.reason == FinishReason::Error)
            setError(tr("The reply failed: %1").arg(QString::fromStdString(result.error)));
    }
    setBusy(false);
    emit replyFinished();
}

QString ChatController::noticeText(const pyramid::ContextNotice& notice)
{
    switch (notice.kind) {
    case pyramid::ContextNotice::Kind::None:
        return {};
    case pyramid::ContextNotice::Kind::TurnsDropped:
        return tr("The conversation outgrew the model's context: "
                  "the oldest %n exchange(s) were left out of the prompt.",
                  nullptr, notice.count);
    case pyramid::ContextNotice::Kind::PositionsRenumbered:
        return tr("The context was full: the oldest %n position(s) were dropped and the rest renumbered.", nullptr,
                  notice.count);
    }
    return {};
}

QString ChatController::contextFullMessage(const pyramid::ChatResult& result, OverflowPolicy overflow)
{
    const auto& shortfall = result.shortfall;
    const auto withNumbers = [&shortfall](const QString& pattern) {
        const QLocale locale;
        return pattern.arg(locale.toString(shortfall->prompt_tokens), locale.toString(shortfall->reply_room),
                           locale.toString(shortfall->context_length));
    };
    QString what;
    if (!result.text.empty())
        what = tr("The reply was cut off: it reached the end of the model's context.");
    else if (!shortfall)
        what = tr("The conversation no longer fits the model's context.");
    else if (shortfall->message_too_long)
        what = withNumbers(tr("The last message is too long for the model's context: it takes %1 tokens, the reply "
                              "needs room for %2 more, and the context holds %3."));
    else
        what = withNumbers(tr("The conversation no longer fits the model's context: it takes %1 tokens, the reply "
                              "needs room for %2 more, and the context holds %3."));
    // Sentences are joined by a translatable pattern: some languages put no space between them.
    const auto followedBy = [&](const QString& advice) {
        return tr("%1 %2", "one sentence after another").arg(what, advice);
    };
    // Dropping turns cannot help a message too long on its own (refused with any policy but
    // Stop, only the last message is left).
    if ((shortfall && shortfall->message_too_long) || (overflow != OverflowPolicy::Stop && result.text.empty()))
        return followedBy(tr("Edit the last message shorter, or start a new chat."));
    if (overflow == OverflowPolicy::Stop)
        return followedBy(tr("To go on, set “When the context is full” in Settings to drop the oldest turns or "
                             "re-encode positions and press Regenerate, or start a new chat."));
    return followedBy(tr("The next turn drops the oldest exchanges to make room."));
}

void ChatController::loadModel(const QString& path)
{
    if (loading_)
        return;
    // A reply in progress ends first, stored as stopped, as Stop does: the
    // load would otherwise wait for it with its progress at zero and its cancel unheard.
    stop();
    cancelLoad_ = false;
    noReopen_ = false;
    setLoading(true);
    EngineWorker* worker = worker_.get();
    QMetaObject::invokeMethod(worker, [worker, path] { worker->load(path); }, Qt::QueuedConnection);
}

void ChatController::cancelLoad(bool anotherFollows)
{
    if (!loading_)
        return;
    noReopen_ = anotherFollows;  // a plain cancel keeps what was open, even after a switch began
    cancelLoad_ = true;
}

void ChatController::clearError() { setError({}); }

void ChatController::setBusy(bool busy)
{
    if (busy == busy_)
        return;
    busy_ = busy;
    emit busyChanged();
    emit actionsChanged();
}

void ChatController::readDeviceMemory()
{
    // A reply or load in flight reports the memory itself, and one question at a time is
    // enough: the worker may be busy for a while.
    if (busy_ || loading_ || deviceMemoryPending_)
        return;
    if (!hasModel_) {
        stats_.setDeviceMemory(std::nullopt);
        return;
    }
    deviceMemoryPending_ = true;
    EngineWorker* worker = worker_.get();
    QMetaObject::invokeMethod(worker, [worker] { worker->readDeviceMemory(); }, Qt::QueuedConnection);
}

void ChatController::setLoading(bool loading)
{
    if (loading == loading_)
        return;
    loading_ = loading;
    emit actionsChanged();
}

void ChatController::setError(const QString& error)
{
    if (error == error_)
        return;
    error_ = error;
    emit errorChanged();
}
