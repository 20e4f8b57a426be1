#include "reply_channel.h"

namespace pyramid::server {

void ReplyChannel::push(ReplyUpdate update)
{
    {
        std::lock_guard lock(mutex_);
        updates_.push_back(std::move(update));
    }
    ready_.notify_one();
}

std::vector<ReplyUpdate> ReplyChannel::take(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return !updates_.empty(); });
    std::vector<ReplyUpdate> out(std::make_move_iterator(updates_.begin()), std::make_move_iterator(updates_.end()));
    updates_.clear();
    return out;
}

} // namespace pyramid::server
