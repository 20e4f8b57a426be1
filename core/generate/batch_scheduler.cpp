#include "generate/batch_scheduler.h"

#include <algorithm>

#include "kv/kv_footprint.h"
#include "util/byte_size.h"
#include "util/error.h"

namespace pyramid {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

template <typename Sequences>
typename Sequences::value_type take(Sequences& sequences, size_t index)
{
    auto sequence = std::move(sequences[index]);
    sequences.erase(sequences.begin() + static_cast<ptrdiff_t>(index));
    return sequence;
}

} // namespace

template <typename Sequences, typename Full, typename Top>
void BatchScheduler::run_and_store(const Sequences& sequences, Full full_step, Top top_step)
{
    // Greedy and top-k samplers need a row's highest logits only; one that needs them all
    // (no top-k limit, a penalty, log-probabilities, which need the whole row's sum, or JSON
    // mode, which may refuse every high one) makes the whole batch fetch whole rows.
    int k = 1;
    for (const SequencePtr& s : sequences) {
        const bool whole_row = s->request.likeliest_logprobs || s->request.json;
        const int needed = whole_row ? 0 : s->sampler.top_logits_needed();
        k = needed == 0 ? 0 : std::max(k, needed);
        if (k == 0)
            break;
    }
    if (k > 0) {
        std::vector<TopLogits> top = top_step(k);
        for (size_t i = 0; i < sequences.size(); ++i) {
            sequences[i]->logits.clear();
            sequences[i]->top = std::move(top[i]);
        }
        return;
    }
    std::vector<std::vector<float>> logits = full_step();
    for (size_t i = 0; i < sequences.size(); ++i)
        sequences[i]->logits = std::move(logits[i]);
}

BatchScheduler::Sequence::Sequence(int id, BatchRequest r, int n_vocab)
    : id(id), tokens(std::move(r.prompt)), prompt_length(tokens.size()), request(std::move(r)),
      sampler(request.sampling, n_vocab)
{
}

BatchScheduler::BatchScheduler(Backend& backend, BatchOptions options) : backend_(backend), options_(options)
{
    if (options_.max_batch < 1)
        throw Error("a batch holds at least one sequence (max_batch " + std::to_string(options_.max_batch) + ")");
}

int BatchScheduler::submit(BatchRequest request)
{
    const int context = backend_.config().context_length;
    if (request.prompt.empty())
        throw Error("the prompt is empty");
    if (request.max_new_tokens < 1)
        throw Error("a request must ask for at least one token");
    if (static_cast<int>(request.prompt.size()) + request.max_new_tokens > context)
        throw Error("the prompt has " + std::to_string(request.prompt.size()) + " tokens and asks for " +
                    std::to_string(request.max_new_tokens) + " more, but the model's context holds " +
                    std::to_string(context));
    // Checked here: a bad id found at admission would fail every request admitted with it.
    const int n_vocab = backend_.config().n_vocab;
    for (size_t i = 0; i < request.prompt.size(); ++i)
        if (request.prompt[i] < 0 || request.prompt[i] >= n_vocab)
            throw Error("prompt token " + std::to_string(i) + " is id " + std::to_string(request.prompt[i]) +
                        ", outside the vocabulary of " + std::to_string(n_vocab));
    if (request.likeliest_logprobs && (*request.likeliest_logprobs < 0 || *request.likeliest_logprobs > n_vocab))
        throw Error("a request may ask for the log-probabilities of 0 to " + std::to_string(n_vocab) +
                    " likeliest tokens, not " + std::to_string(*request.likeliest_logprobs));
    request.compression.validate();
    auto sequence = std::make_unique<Sequence>(next_id_++, std::move(request), n_vocab);
    sequence->state = std::make_unique<SequenceState>(backend_, sequence->request.compression);
    waiting_.push_back(std::move(sequence));
    return waiting_.back()->id;
}

void BatchScheduler::cancel(int id)
{
    for (SequencePtr& s : running_)
        if (s->id == id)
            s->cancelled = true;
    for (SequencePtr& s : waiting_)
        if (s->id == id)
            s->cancelled = true;
}

std::span<const int32_t> BatchScheduler::generated(int id) const
{
    for (const auto* queue : {&running_, &finished_})
        for (const SequencePtr& s : *queue)
            if (s->id == id)
                return s->generated();
    for (const SequencePtr& s : waiting_)
        if (s->id == id)
            return s->generated();
    throw Error("no request " + std::to_string(id) + " (finished before the last step, or never submitted)");
}

size_t BatchScheduler::kv_bytes() const
{
    size_t total = 0;
    for (const SequencePtr& s : running_)
        total += s->state->cache().bytes();
    return total;
}

size_t BatchScheduler::full_kv_bytes() const
{
    size_t total = 0;
    for (const SequencePtr& s : running_)
        total += s->state->full_cache_bytes();
    return total;
}

std::vector<int> BatchScheduler::layer_lengths() const
{
    std::vector<int> total(static_cast<size_t>(backend_.config().n_layers), 0);
    for (const SequencePtr& s : running_) {
        const std::vector<int> lengths = s->state->cache().lengths();
        for (size_t l = 0; l < total.size(); ++l)
            total[l] += lengths[l];
    }
    return total;
}

bool BatchScheduler::fits(size_t more_bytes) const
{
    return options_.kv_byte_limit == 0 || kv_bytes() + more_bytes <= options_.kv_byte_limit;
}

void BatchScheduler::finish(SequencePtr s, FinishReason reason, std::string error, std::vector<BatchEvent>& events)
{
    s->state.reset();  // its KV memory goes back now
    auto event = std::find_if(events.begin(), events.end(), [&](const BatchEvent& e) { return e.id == s->id; });
    if (event == events.end()) {
        events.emplace_back().id = s->id;
        event = events.end() - 1;
    }
    event->finished = true;
    event->reason = reason;
    event->error = std::move(error);
    finished_.push_back(std::move(s));
}

void BatchScheduler::preempt(SequencePtr sequence)
{
    sequence->state->reset();
    sequence->logits.clear();
    sequence->top = {};
    ++preemptions_;
    ++last_step_.preempted;
    waiting_.push_front(std::move(sequence));
}

void BatchScheduler::admit(std::vector<BatchEvent>& events)
{
    const int n_layers = backend_.config().n_layers;
    std::vector<SequencePtr> admitted;
    size_t planned = 0;
    int tokens = 0;
    while (!waiting_.empty() && static_cast<int>(running_.size() + admitted.size()) < options_.max_batch) {
        Sequence& next = *waiting_.front();
        // A preempted sequence runs again from its prompt and what it generated.
        const int n = static_cast<int>(next.tokens.size());
        const size_t bytes =
            static_cast<size_t>(plan_kv_footprint(next.request.compression, n_layers, n, 0).prefill_peak) *
            backend_.kv_entry_bytes();
        const bool first = running_.empty() && admitted.empty();
        if (first && !fits(bytes)) {
            finish(take(waiting_, 0), FinishReason::Error,
                   "out of KV-cache memory: the prompt of " + std::to_string(n) + " tokens needs " +
                       byte_size_text(bytes) + " but the batch may hold " + byte_size_text(options_.kv_byte_limit),
                   events);
            continue;
        }
        if (!first && (tokens + n > options_.max_prompt_tokens || !fits(planned + bytes)))
            break;
        planned += bytes;
        tokens += n;
        admitted.push_back(take(waiting_, 0));
    }
    // The memory decides too: each admitted prompt's room is taken before any runs. The first
    // that does not get it waits for memory with those after it, or, holding nothing it could
    // wait for (nothing runs, nothing came before it), ends alone: it can never fit.
    for (size_t i = 0; i < admitted.size();) {
        try {
            admitted[i]->state->reserve_prompt(static_cast<int>(admitted[i]->tokens.size()));
            ++i;
        } catch (const KvMemoryExhausted& e) {
            if (running_.empty() && i == 0) {
                finish(take(admitted, 0), FinishReason::Error, e.what(), events);
                continue;
            }
            while (admitted.size() > i) {
                admitted.back()->state->reset();  // what it took goes back
                waiting_.push_front(take(admitted, admitted.size() - 1));
            }
        }
    }
    if (admitted.empty())
        return;
    tokens = 0;
    for (const SequencePtr& s : admitted)
        tokens += static_cast<int>(s->tokens.size());

    std::vector<SequenceState*> states;
    std::vector<std::span<const int32_t>> spans;
    for (const SequencePtr& s : admitted) {
        states.push_back(s->state.get());
        spans.emplace_back(s->tokens);
    }
    const auto start = Clock::now();
    std::string error;
    try {
        run_and_store(
            admitted, [&] { return step_.run(states, spans, StepPhase::Prompt, 0).logits; },
            [&](int k) { return step_.run(states, spans, StepPhase::Prompt, k).top; });
    } catch (const std::exception& e) {  // not for want of KV memory (reserved above): the step failed
        error = e.what();
    }
    last_step_.prompt_seconds += seconds_since(start);
    last_step_.admitted += static_cast<int>(admitted.size());
    last_step_.prompt_tokens += tokens;
    for (SequencePtr& s : admitted) {
        if (error.empty())
            running_.push_back(std::move(s));
        else
            finish(std::move(s), FinishReason::Error, error, events);
    }
}

void BatchScheduler::make_room_for_decode()
{
    if (running_.empty())
        return;
    const size_t per_step = static_cast<size_t>(backend_.config().n_layers) * backend_.kv_entry_bytes();
    while (running_.size() > 1 && !fits(per_step * running_.size()))
        preempt(take(running_, running_.size() - 1));
}

std::vector<BatchEvent> BatchScheduler::step()
{
    last_step_ = {};
    finished_.clear();
    std::vector<BatchEvent> events;
    // Cancelled requests end now, also those still waiting behind a full batch.
    const auto finish_cancelled = [&](auto& queue) {
        for (size_t i = 0; i < queue.size();)
            if (queue[i]->cancelled)
                finish(take(queue, i), FinishReason::Cancelled, {}, events);
            else
                ++i;
    };
    finish_cancelled(running_);
    finish_cancelled(waiting_);
    admit(events);

    // Every running sequence draws its next token from the logits of its last step.
    for (size_t i = 0; i < running_.size();) {
        Sequence& s = *running_[i];
        if (s.request.json)
            s.request.json->mask(s.logits);
        const int32_t token = s.draw_next();
        if (s.request.json && !s.request.json->accept(token)) {
            finish(take(running_, i), FinishReason::Error,
                   "JSON: no token of the vocabulary continues the reply as the schema asks", events);
            continue;
        }
        s.tokens.push_back(token);
        BatchEvent& event = events.emplace_back();
        event.id = s.id;
        event.token = token;
        if (s.request.likeliest_logprobs)
            event.logprobs = token_logprobs(s.logits, token, *s.request.likeliest_logprobs);
        if ((s.request.eos_token && token == *s.request.eos_token) ||
            (s.request.json && s.request.json->complete()))
            finish(take(running_, i), FinishReason::EndOfSequence, {}, events);
        else if (static_cast<int>(s.generated().size()) >= s.request.max_new_tokens)
            finish(take(running_, i), FinishReason::MaxTokens, {}, events);
        else
            ++i;
    }

    make_room_for_decode();
    // Room for every running sequence's next entry, taken before the step (the allocator
    // decides): when the memory runs out, the newest sequence is preempted, its blocks freed,
    // and the others go on untouched; the last one left that still does not fit ends alone.
    for (size_t i = 0; i < running_.size();) {
        try {
            running_[i]->state->reserve_decode();
            ++i;
        } catch (const KvMemoryExhausted& e) {
            if (running_.size() == 1)
                finish(take(running_, 0), FinishReason::Error, e.what(), events);
            else
                preempt(take(running_, running_.size() - 1));
        }
    }
    if (!running_.empty() && !fits(static_cast<size_t>(backend_.config().n_layers) * backend_.kv_entry_bytes()))
        finish(take(running_, 0), FinishReason::Error,
               "out of KV-cache memory: one sequence needs more than the " +
                   std::to_string(options_.kv_byte_limit >> 10) + " KiB the batch may hold",
               events);
    if (!running_.empty()) {
        std::vector<SequenceState*> states;
        std::vector<std::span<const int32_t>> inputs;
        for (const SequencePtr& s : running_) {
            states.push_back(s->state.get());
            inputs.emplace_back(&s->tokens.back(), 1);
        }
        const auto start = Clock::now();
        try {
            run_and_store(
                running_, [&] { return step_.run(states, inputs, StepPhase::Decode, 0).logits; },
                [&](int k) { return step_.run(states, inputs, StepPhase::Decode, k).top; });
            last_step_.decoded = static_cast<int>(running_.size());
        } catch (const std::exception& e) {
            // Not for want of KV memory (reserved above): a failure the step cannot pin on one
            // sequence. The whole batch was reset: every sequence ends, with what it generated.
            while (!running_.empty())
                finish(take(running_, running_.size() - 1), FinishReason::Error, e.what(), events);
        }
        last_step_.decode_seconds = seconds_since(start);
    }
    std::sort(events.begin(), events.end(), [](const BatchEvent& a, const BatchEvent& b) { return a.id < b.id; });
    return events;
}

} // namespace pyramid
