<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>CacheStatsModel</name>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 prompt + %2 generated</source>
        <translation>提示词 %1 + 生成 %2</translation>
    </message>
    <message>
        <source>No reply yet</source>
        <translation>尚无回复</translation>
    </message>
    <message>
        <source>Reading the prompt</source>
        <translation>正在读取提示词</translation>
    </message>
    <message>
        <source>Generating</source>
        <translation>正在生成</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <source>Process memory</source>
        <translation>进程内存</translation>
    </message>
    <message>
        <source>%1 of %2, %3 of it this app&apos;s</source>
        <translation>已用 %1 / 共 %2，其中本应用 %3</translation>
    </message>
    <message numerus="yes">
        <source>CPU, %n thread(s), %1 KV cache</source>
        <translation>
            <numerusform>CPU，%n 个线程，%1 KV 缓存</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU (CUDA): %1</source>
        <translation>GPU（CUDA）：%1</translation>
    </message>
    <message>
        <source>%1 (%2 in blocks)</source>
        <translation>%1（按块计 %2）</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <source>Open a model before sending a message.</source>
        <translation>请先打开模型，再发送消息。</translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation>回复失败：%1</translation>
    </message>
    <message>
        <source>The reply was cut off: it reached the end of the model&apos;s context.</source>
        <translation>回复被截断：已到达模型上下文的末尾。</translation>
    </message>
    <message>
        <source>The conversation no longer fits the model&apos;s context.</source>
        <translation>对话已超出模型的上下文长度。</translation>
    </message>
    <message>
        <source>To go on, set “When the context is full” in Settings to drop the oldest turns or re-encode positions and press Regenerate, or start a new chat.</source>
        <translation>如需继续，请在“设置”中将“上下文已满时”设为“丢弃最早的轮次”或“重新编码位置”，然后点击“重新生成”；或者开始新的聊天。</translation>
    </message>
    <message>
        <source>Edit the last message shorter, or start a new chat.</source>
        <translation>请缩短上一条消息，或开始新的聊天。</translation>
    </message>
    <message>
        <source>The next turn drops the oldest exchanges to make room.</source>
        <translation>下一轮将丢弃最早的几轮对话以腾出空间。</translation>
    </message>
    <message>
        <source>The chat history could not be read or saved (%1).</source>
        <translation>无法读取或保存聊天记录（%1）。</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>one sentence after another</comment>
        <translation>%1%2</translation>
    </message>
    <message numerus="yes">
        <source>The conversation outgrew the model&apos;s context: the oldest %n exchange(s) were left out of the prompt.</source>
        <translation>
            <numerusform>对话超出了模型的上下文：最早的 %n 轮对话未放入提示。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The context was full: the oldest %n position(s) were dropped and the rest renumbered.</source>
        <translation>
            <numerusform>上下文已满：最早的 %n 个位置已丢弃，其余位置重新编号。</numerusform>
        </translation>
    </message>
    <message>
        <source>The last message is too long for the model&apos;s context: it takes %1 tokens, the reply needs room for %2 more, and the context holds %3.</source>
        <translation>最后一条消息对模型的上下文来说太长：它占用 %1 个词元，回复还需要 %2 个词元的空间，而上下文只能容纳 %3 个。</translation>
    </message>
    <message>
        <source>The conversation no longer fits the model&apos;s context: it takes %1 tokens, the reply needs room for %2 more, and the context holds %3.</source>
        <translation>对话已超出模型的上下文：它占用 %1 个词元，回复还需要 %2 个词元的空间，而上下文只能容纳 %3 个。</translation>
    </message>
    <message>
        <source>This message may not fit: it takes about %1 tokens, and %2 of the context&apos;s %3 positions are left once the reply has room. When the context is full: %4.</source>
        <translation>这条消息可能放不下：它约占 %1 个词元，而为回复留出空间后，上下文的 %3 个位置只剩 %2 个。上下文已满时：%4。</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Messages</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Type a message below to start. Enter sends, Shift+Enter starts a new line, Esc stops a reply.</source>
        <translation>在下方输入消息即可开始。按 Enter 发送，Shift+Enter 换行，Esc 停止回复。</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Dismiss the error</source>
        <translation>关闭错误提示</translation>
    </message>
    <message>
        <source>Welcome to PyramidChat</source>
        <translation>欢迎使用 PyramidChat</translation>
    </message>
    <message>
        <source>No model is open: PyramidChat comes without one. Open a LLaMA-family chat model in GGUF format (such as SmolLM2-135M-Instruct or TinyLlama-1.1B-Chat), or put one in the models folder, where it is found at every start.</source>
        <translation>尚未打开模型：PyramidChat 不附带模型。请打开一个 GGUF 格式的 LLaMA 系列聊天模型（例如 SmolLM2-135M-Instruct 或 TinyLlama-1.1B-Chat），或将其放入模型文件夹，每次启动时都会在那里找到它。</translation>
    </message>
    <message>
        <source>Open model file…</source>
        <translation>打开模型文件…</translation>
    </message>
    <message>
        <source>Show the models folder</source>
        <translation>显示模型文件夹</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>下载 %1</translation>
    </message>
    <message>
        <source>Downloading %1…</source>
        <translation>正在下载 %1…</translation>
    </message>
    <message>
        <source>Download progress</source>
        <translation>下载进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel the download</source>
        <translation>取消下载</translation>
    </message>
    <message>
        <source>not verified</source>
        <translation>未验证</translation>
    </message>
    <message>
        <source>No SHA-256 is known for this file, so the download cannot be checked: it is kept as it arrives.</source>
        <translation>此文件没有已知的 SHA-256 校验值，因此无法检查下载：文件将按收到的原样保留。</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Cancel edit</source>
        <translation>取消编辑</translation>
    </message>
    <message>
        <source>Edit last</source>
        <translation>编辑上一条</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Regenerate the last reply</source>
        <translation>重新生成上一条回复</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>重新发送</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the reply (Esc)</source>
        <translation>停止回复（Esc）</translation>
    </message>
    <message>
        <source>Edit the last message and send it again</source>
        <translation>编辑最后一条消息并重新发送</translation>
    </message>
    <message>
        <source>Replace the last message and send it again</source>
        <translation>替换最后一条消息并重新发送</translation>
    </message>
    <message>
        <source>A reply is still being written in another conversation: send when it is done, or stop it.</source>
        <translation>另一个对话仍在生成回复：请等它完成后再发送，或停止它。</translation>
    </message>
    <message>
        <source>Editing your message: sending it goes on from there, and the earlier text stays as a version</source>
        <translation>正在编辑您的消息：发送后对话将从此处继续，之前的文本将保留为一个版本</translation>
    </message>
    <message>
        <source>Cancel editing and keep the message as it was (Esc)</source>
        <translation>取消编辑并保留原消息（Esc）</translation>
    </message>
</context>
<context>
    <name>ConversationExport</name>
    <message>
        <source>New chat</source>
        <translation>新聊天</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>(stopped)</source>
        <translation>（已停止）</translation>
    </message>
</context>
<context>
    <name>ConversationImport</name>
    <message>
        <source>It is no conversation export: it has no list of messages.</source>
        <translation>这不是导出的对话：其中没有消息列表。</translation>
    </message>
    <message>
        <source>Message %1 has no text, or no role of user or assistant.</source>
        <translation>第 %1 条消息没有文本，或角色不是 user 或 assistant。</translation>
    </message>
    <message>
        <source>It is no conversation export: it does not start with a “# ” title.</source>
        <translation>这不是导出的对话：它不是以“# ”标题开头。</translation>
    </message>
    <message>
        <source>It holds no messages: no “## User” or “## Assistant” heading was found.</source>
        <translation>其中没有消息：未找到“## 用户”或“## 助手”标题。</translation>
    </message>
    <message>
        <source>It is not valid JSON (at byte %1).</source>
        <translation>不是有效的 JSON（位于第 %1 字节）。</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>Deleted “%1”</source>
        <translation>已删除“%1”</translation>
    </message>
    <message>
        <source>The conversation no longer exists.</source>
        <translation>该对话已不存在。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Could not write %1: only files on this computer can be written.</source>
        <translation>无法写入 %1：只能写入本机上的文件。</translation>
    </message>
    <message>
        <source>conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>only files on this computer can be read.</source>
        <translation>只能读取本机上的文件。</translation>
    </message>
    <message>
        <source>Could not import %1: it is larger than 64 MB, far more than a conversation.</source>
        <translation>无法导入 %1：文件大于 64 MB，远超一段对话的大小。</translation>
    </message>
    <message>
        <source>Could not import %1: %2</source>
        <translation>无法导入 %1：%2</translation>
    </message>
    <message>
        <source>Could not import %1: the chat history could not be written.</source>
        <translation>无法导入 %1：无法写入聊天记录。</translation>
    </message>
</context>
<context>
    <name>ConversationSidebar</name>
    <message>
        <source>New chat</source>
        <translation>新聊天</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Actions for %1</source>
        <translation>%1 的操作</translation>
    </message>
    <message>
        <source>No conversations</source>
        <translation>暂无对话</translation>
    </message>
    <message>
        <source>Nothing found</source>
        <translation>未找到结果</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo delete</source>
        <translation>撤销删除</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>导出为 Markdown…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>导出为 JSON…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>New title</source>
        <translation>新标题</translation>
    </message>
    <message>
        <source>Export conversation</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON（*.json）</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown（*.md）</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>The conversation was saved as %1.</source>
        <translation>对话已保存为 %1。</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Replace the file?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it with this conversation?</source>
        <translation>%1 已存在。要用此对话替换它吗？</translation>
    </message>
    <message>
        <source>Exported</source>
        <translation>已导出</translation>
    </message>
    <message>
        <source>Search conversations (Ctrl+F)</source>
        <translation>搜索对话（Ctrl+F）</translation>
    </message>
    <message>
        <source>Import failed</source>
        <translation>导入失败</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Read a Markdown or JSON export back as a conversation</source>
        <translation>将 Markdown 或 JSON 导出文件读回为对话</translation>
    </message>
    <message>
        <source>Import a conversation</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Conversation exports (*.md *.json)</source>
        <translation>对话导出文件 (*.md *.json)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>DesktopServer</name>
    <message>
        <source>Serving %1 at %2</source>
        <translation>正在 %2 上提供 %1</translation>
    </message>
    <message>
        <source>Starts once a model is open</source>
        <translation>打开模型后启动</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Not serving</source>
        <translation>未提供服务</translation>
    </message>
    <message>
        <source>%1 running, %2 waiting, %3 answered</source>
        <translation>%1 个运行中，%2 个等待中，已回答 %3 个</translation>
    </message>
    <message>
        <source>Cannot serve on port %1: another program uses it, or it is not allowed. Choose another port.</source>
        <translation>无法在端口 %1 上提供服务：它已被其他程序占用或不被允许。请选择其他端口。</translation>
    </message>
    <message>
        <source>KV cache %1 (a full one: %2)</source>
        <translation>KV 缓存 %1（完整缓存：%2）</translation>
    </message>
</context>
<context>
    <name>LayerPyramid</name>
    <message>
        <source>KV cache length per layer</source>
        <translation>每层的 KV 缓存长度</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 entries</source>
        <translation>第 %1 层：%2 / %3 个条目</translation>
    </message>
    <message>
        <source>L%1  %2</source>
        <translation>L%1  %2</translation>
    </message>
    <message>
        <source>Send a message to see how much of each layer&apos;s cache is kept.</source>
        <translation>发送一条消息，即可查看每层缓存保留了多少。</translation>
    </message>
</context>
<context>
    <name>LivePanel</name>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Entries per layer (bar) against a full cache of %1 (outline)</source>
        <translation>每层条目数（实心条）与 %1 个条目的完整缓存（轮廓）对比</translation>
    </message>
    <message>
        <source>KV memory</source>
        <translation>KV 内存</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>节省</translation>
    </message>
    <message>
        <source>KV cache saving</source>
        <translation>KV 缓存节省比例</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Context fill</source>
        <translation>上下文占用</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>First token</source>
        <translation>首个词元</translation>
    </message>
    <message>
        <source>GPU memory in use</source>
        <translation>已用 GPU 显存</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>entries kept</source>
        <translation>保留的条目</translation>
    </message>
    <message>
        <source>entries kept; some just dropped</source>
        <translation>保留的条目；刚刚丢弃了一些</translation>
    </message>
    <message>
        <source>KV memory during the reply: kept (filled) against a full cache (line)</source>
        <translation>回复过程中的 KV 内存：保留部分（填充）与完整缓存（线条）对比</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>%1 — PyramidChat</source>
        <translation>%1 — PyramidChat</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Reply in progress</source>
        <translation>正在回复</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
    <message>
        <source>Copy the code</source>
        <translation>复制这段代码</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>System note: %1</source>
        <translation>系统提示：%1</translation>
    </message>
    <message>
        <source>Copy, %1: %2</source>
        <translation>复制，%1：%2</translation>
    </message>
    <message>
        <source>Copy code, %1: %2</source>
        <translation>复制代码，%1：%2</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete, %1: %2</source>
        <translation>删除，%1：%2</translation>
    </message>
    <message>
        <source>Delete this message from the conversation</source>
        <translation>从对话中删除这条消息</translation>
    </message>
    <message>
        <source>Earlier version</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <comment>version of a reply</comment>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Later version</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Edit, %1: %2</source>
        <translation>编辑，%1：%2</translation>
    </message>
    <message>
        <source>Edit this message and send it again; the conversation goes on from there</source>
        <translation>编辑此消息并重新发送；对话将从此处继续</translation>
    </message>
</context>
<context>
    <name>MessageListModel</name>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Reached the reply length limit</source>
        <translation>已达到回复长度上限</translation>
    </message>
    <message>
        <source>Cut off: the context window is full</source>
        <translation>已截断：上下文窗口已满</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s) · %1 tokens/s · first token %2 ms</source>
        <translation>
            <numerusform>%n 个词元 · %1 词元/秒 · 首个词元 %2 毫秒</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · cache kept</source>
        <translation>%1 · 已复用缓存</translation>
    </message>
    <message>
        <source>Interrupted by an error</source>
        <translation>因错误而中断</translation>
    </message>
</context>
<context>
    <name>ModelBar</name>
    <message>
        <source>Show conversations</source>
        <translation>显示对话</translation>
    </message>
    <message>
        <source>Show or hide the conversations</source>
        <translation>显示或隐藏对话列表</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message>
        <source>No model open</source>
        <translation>未打开模型</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Model loading progress</source>
        <translation>模型加载进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel opening the model</source>
        <translation>取消打开模型</translation>
    </message>
    <message>
        <source>Model ▾</source>
        <translation>模型 ▾</translation>
    </message>
    <message>
        <source>Model menu</source>
        <translation>模型菜单</translation>
    </message>
    <message>
        <source>Open GGUF file…</source>
        <translation>打开 GGUF 文件…</translation>
    </message>
    <message>
        <source>Open Hugging Face folder…</source>
        <translation>打开 Hugging Face 文件夹…</translation>
    </message>
    <message>
        <source>Models found</source>
        <translation>找到的模型</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>最近使用</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Cache panel</source>
        <translation>缓存面板</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Dismiss the model error</source>
        <translation>关闭模型错误提示</translation>
    </message>
    <message>
        <source>Open a GGUF model</source>
        <translation>打开 GGUF 模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型（*.gguf）</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件（*）</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>Open the settings (Ctrl+,)</source>
        <translation>打开设置（Ctrl+,）</translation>
    </message>
    <message>
        <source>Show or hide the cache panel</source>
        <translation>显示或隐藏缓存面板</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>%1 — cannot be opened: %2</source>
        <translation>%1 — 无法打开：%2</translation>
    </message>
    <message>
        <source>Show the models folder</source>
        <translation>显示模型文件夹</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>List the keyboard shortcuts (F1)</source>
        <translation>列出键盘快捷键（F1）</translation>
    </message>
    <message>
        <source>Keyboard shortcuts (F1)</source>
        <translation>键盘快捷键（F1）</translation>
    </message>
</context>
<context>
    <name>ModelCatalogue</name>
    <message>
        <source>%1 is not a catalogue: it needs a “models” list.</source>
        <translation>%1 不是目录文件：它需要一个“models”列表。</translation>
    </message>
    <message>
        <source>Left out of the catalogue, for a missing name, a file name that is not a plain .gguf name, an address that is not http(s) or a SHA-256 that is not 64 hex digits: %1</source>
        <translation>以下条目未列入目录（缺少名称、文件名不是简单的 .gguf 名称、地址不是 http(s)，或 SHA-256 不是 64 位十六进制数字）：%1</translation>
    </message>
</context>
<context>
    <name>ModelDownload</name>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>after %1 of %2</source>
        <translation>在 %1 / %2 处</translation>
    </message>
    <message>
        <source>after %1</source>
        <translation>在 %1 处</translation>
    </message>
    <message>
        <source>the server answered %1</source>
        <translation>服务器返回 %1</translation>
    </message>
    <message>
        <source>The download stopped %1 (%2). Start it again to go on from there.</source>
        <translation>下载%1中断（%2）。再次开始即可从中断处继续。</translation>
    </message>
    <message>
        <source>Could not read %1 to check it: %2</source>
        <translation>无法读取 %1 进行校验：%2</translation>
    </message>
    <message>
        <source>The file that arrived is not the one expected (its SHA-256 is %1, not %2), so it was deleted. Try again later, or check the catalogue&apos;s address.</source>
        <translation>收到的文件不是预期的文件（其 SHA-256 为 %1，而不是 %2），已将其删除。请稍后重试，或检查目录中的地址。</translation>
    </message>
    <message>
        <source>Could not move the download into place as %1.</source>
        <translation>无法将下载的文件移动为 %1。</translation>
    </message>
    <message>
        <source>the connection closed early</source>
        <translation>连接过早关闭</translation>
    </message>
</context>
<context>
    <name>ModelFileInfo</name>
    <message>
        <source>it cannot be read (%1)</source>
        <translation>无法读取（%1）</translation>
    </message>
    <message>
        <source>it is not a GGUF file</source>
        <translation>不是 GGUF 文件</translation>
    </message>
    <message>
        <source>it holds no weights (a tokenizer&apos;s vocabulary only)</source>
        <translation>不含权重（只有分词器的词表）</translation>
    </message>
    <message>
        <source>it is damaged: %1</source>
        <translation>文件已损坏：%1</translation>
    </message>
    <message>
        <source>its config.json cannot be read (%1)</source>
        <translation>无法读取其 config.json（%1）</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n 层</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 positions</source>
        <translation>%1 个位置</translation>
    </message>
    <message>
        <source> · </source>
        <comment>between the facts of a model</comment>
        <translation> · </translation>
    </message>
    <message>
        <source>it is not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>its architecture %1 is not supported (LLaMA only)</source>
        <translation>不支持其架构 %1（仅支持 LLaMA）</translation>
    </message>
    <message>
        <source>About %1: weights %2, KV cache %3 at %4 positions (%5 with PyramidInfer)</source>
        <translation>约 %1：权重 %2，%4 个位置时 KV 缓存 %3（使用 PyramidInfer 时为 %5）</translation>
    </message>
</context>
<context>
    <name>ModelManager</name>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>%1 is not a model folder: it needs config.json and .safetensors weights.</source>
        <translation>%1 不是模型文件夹：需要包含 config.json 和 .safetensors 权重文件。</translation>
    </message>
    <message>
        <source>No model found in %1. Open a GGUF file or a Hugging Face folder.</source>
        <translation>在 %1 中未找到模型。请打开一个 GGUF 文件或 Hugging Face 文件夹。</translation>
    </message>
    <message>
        <source>No model open</source>
        <translation>未打开模型</translation>
    </message>
    <message>
        <source>%1 · %2 layers · %3 positions · %4 · %5</source>
        <translation>%1 · %2 层 · %3 个位置 · %4 · %5</translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>%1 Opened %2 instead.</source>
        <translation>%1 已改为打开 %2。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>System prompt for this conversation</source>
        <translation>本对话的系统提示词</translation>
    </message>
    <message>
        <source>None: the model gets no system prompt</source>
        <translation>无：模型不会收到系统提示词</translation>
    </message>
    <message>
        <source>Compression preset</source>
        <translation>压缩预设</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Apply the compression preset</source>
        <translation>应用压缩预设</translation>
    </message>
    <message>
        <source>Reset all</source>
        <translation>全部重置</translation>
    </message>
    <message>
        <source>Reset all settings to their defaults</source>
        <translation>将所有设置恢复为默认值</translation>
    </message>
    <message>
        <source>Fields marked in red are not applied; replies use their last valid value.</source>
        <translation>标红的字段不会生效；回复将沿用其上一个有效值。</translation>
    </message>
    <message>
        <source>Changes apply to the next reply; the language, the device, the CPU threads and the cache precision when the app starts again.</source>
        <translation>更改从下一条回复起生效；语言、设备、CPU 线程数和缓存精度在应用下次启动时生效。</translation>
    </message>
    <message>
        <source>Restart PyramidChat to use the new language, device, CPU threads or cache precision.</source>
        <translation>请重新启动 PyramidChat 以使用新的语言、设备、CPU 线程数或缓存精度。</translation>
    </message>
    <message>
        <source>Reset all settings?</source>
        <translation>重置所有设置？</translation>
    </message>
    <message>
        <source>Every generation, multi-turn and cache setting goes back to its default, and the prompt format to automatic. The language, the theme, the device, the cache precision and the server stay as they are.</source>
        <translation>所有生成、多轮对话和缓存设置都恢复为默认值，提示格式恢复为自动。语言、主题、设备、缓存精度和服务器保持不变。</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
</context>
<context>
    <name>SettingsModel</name>
    <message>
        <source>Generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Multi-turn</source>
        <translation>多轮对话</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>PyramidInfer</source>
        <translation>PyramidInfer</translation>
    </message>
    <message>
        <source>Prompt format</source>
        <translation>提示词格式</translation>
    </message>
    <message>
        <source>Reply length limit (tokens)</source>
        <translation>回复长度上限（词元）</translation>
    </message>
    <message>
        <source>The most tokens one reply may have</source>
        <translation>单条回复最多可包含的词元数</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>0 picks the most likely token every time</source>
        <translation>为 0 时每次都选择概率最高的词元</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Sample among this many most likely tokens (0: off)</source>
        <translation>在概率最高的这么多个词元中采样（0：关闭）</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Sample among the tokens covering this probability (1: off)</source>
        <translation>在累计概率达到该值的词元中采样（1：关闭）</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Drop tokens below this fraction of the best one (0: off)</source>
        <translation>舍弃概率低于最佳词元该比例的词元（0：关闭）</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Above 1 discourages repeating recent tokens (1: off)</source>
        <translation>大于 1 时抑制重复最近的词元（1：关闭）</translation>
    </message>
    <message>
        <source>Repetition window</source>
        <translation>重复窗口</translation>
    </message>
    <message>
        <source>How many recent tokens the penalty looks at</source>
        <translation>重复惩罚考虑的最近词元数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>0 draws a fresh seed for every reply</source>
        <translation>为 0 时每条回复使用新的随机种子</translation>
    </message>
    <message>
        <source>Context mode</source>
        <translation>上下文模式</translation>
    </message>
    <message>
        <source>Keep the compressed cache and read only the new message, or read the whole conversation again for every reply</source>
        <translation>保留压缩后的缓存、只读取新消息，或每次回复都重新读取整个对话</translation>
    </message>
    <message>
        <source>Extend the kept cache</source>
        <translation>扩展保留的缓存</translation>
    </message>
    <message>
        <source>Rebuild every turn</source>
        <translation>每轮重新构建</translation>
    </message>
    <message>
        <source>When the context is full</source>
        <translation>上下文已满时</translation>
    </message>
    <message>
        <source>Refuse the reply, forget the oldest exchanges, or keep the first and most recent positions and renumber them</source>
        <translation>拒绝回复、遗忘最早的几轮对话，或保留最前和最近的位置并重新编号</translation>
    </message>
    <message>
        <source>Stop and say so</source>
        <translation>停止并提示</translation>
    </message>
    <message>
        <source>Drop the oldest turns</source>
        <translation>丢弃最早的轮次</translation>
    </message>
    <message>
        <source>Re-encode positions</source>
        <translation>重新编码位置</translation>
    </message>
    <message>
        <source>Compression</source>
        <translation>压缩</translation>
    </message>
    <message>
        <source>Baseline recent fraction</source>
        <translation>基线方法的最近条目比例</translation>
    </message>
    <message>
        <source>Share of a local or H2O budget kept for the newest entries</source>
        <translation>local 或 H2O 预算中留给最新条目的比例</translation>
    </message>
    <message>
        <source>Recent ratio</source>
        <translation>最近词元比例</translation>
    </message>
    <message>
        <source>Share of the prompt whose attention decides what is kept</source>
        <translation>提示词中由其注意力决定保留内容的部分所占比例</translation>
    </message>
    <message>
        <source>Prefill decay ratio</source>
        <translation>预填充衰减比例</translation>
    </message>
    <message>
        <source>How much each deeper layer keeps after the prompt</source>
        <translation>读取提示词后每个更深的层保留多少</translation>
    </message>
    <message>
        <source>Prefill decay schedule</source>
        <translation>预填充衰减方式</translation>
    </message>
    <message>
        <source>How the kept share falls from layer to layer</source>
        <translation>保留比例逐层下降的方式</translation>
    </message>
    <message>
        <source>Minimum context length</source>
        <translation>最小上下文长度</translation>
    </message>
    <message>
        <source>No layer keeps fewer entries than this</source>
        <translation>任何层保留的条目都不少于此数</translation>
    </message>
    <message>
        <source>Layer interval</source>
        <translation>层间隔</translation>
    </message>
    <message>
        <source>Compress every this many layers</source>
        <translation>每隔这么多层压缩一次</translation>
    </message>
    <message>
        <source>Sink tokens</source>
        <translation>汇聚词元</translation>
    </message>
    <message>
        <source>First entries that are always kept</source>
        <translation>始终保留的最前面的条目</translation>
    </message>
    <message>
        <source>Distance weight</source>
        <translation>距离权重</translation>
    </message>
    <message>
        <source>Weight of the newest queries in the attention score</source>
        <translation>最新查询在注意力得分中的权重</translation>
    </message>
    <message>
        <source>Generation decay ratio</source>
        <translation>生成衰减比例</translation>
    </message>
    <message>
        <source>How much each deeper layer keeps while generating</source>
        <translation>生成过程中每个更深的层保留多少</translation>
    </message>
    <message>
        <source>Generation decay schedule</source>
        <translation>生成衰减方式</translation>
    </message>
    <message>
        <source>How that share falls from layer to layer</source>
        <translation>该比例逐层下降的方式</translation>
    </message>
    <message>
        <source>Generation compress ratio</source>
        <translation>生成压缩比例</translation>
    </message>
    <message>
        <source>Share of the new entries kept at each compression</source>
        <translation>每次压缩时保留的新条目比例</translation>
    </message>
    <message>
        <source>Compress after (tokens)</source>
        <translation>压缩间隔（词元）</translation>
    </message>
    <message>
        <source>New entries that trigger a compression while generating</source>
        <translation>生成过程中触发一次压缩的新条目数</translation>
    </message>
    <message>
        <source>Enter a whole number.</source>
        <translation>请输入整数。</translation>
    </message>
    <message>
        <source>Enter a number.</source>
        <translation>请输入数字。</translation>
    </message>
    <message>
        <source>Choose one of: %1</source>
        <translation>请从以下选项中选择：%1</translation>
    </message>
    <message>
        <source>The reply length limit must be at least 1.</source>
        <translation>回复长度上限至少为 1。</translation>
    </message>
    <message>
        <source>Temperature must not be negative.</source>
        <translation>温度不能为负数。</translation>
    </message>
    <message>
        <source>Top-k must not be negative.</source>
        <translation>Top-k 不能为负数。</translation>
    </message>
    <message>
        <source>Top-p must be greater than 0 and at most 1.</source>
        <translation>Top-p 必须大于 0 且不超过 1。</translation>
    </message>
    <message>
        <source>Min-p must be at least 0 and below 1.</source>
        <translation>Min-p 必须不小于 0 且小于 1。</translation>
    </message>
    <message>
        <source>The repetition penalty must be positive.</source>
        <translation>重复惩罚必须为正数。</translation>
    </message>
    <message>
        <source>The repetition window must not be negative.</source>
        <translation>重复窗口不能为负数。</translation>
    </message>
    <message>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>The language of the app; it changes the next time the app starts</source>
        <translation>应用的界面语言；下次启动应用时生效</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Where models run; it changes the next time the app starts</source>
        <translation>模型运行的位置；下次启动应用时生效</translation>
    </message>
    <message>
        <source>Automatic (the GPU when one is usable)</source>
        <translation>自动（有可用 GPU 时使用 GPU）</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>NVIDIA GPU (CUDA)</source>
        <translation>NVIDIA GPU（CUDA）</translation>
    </message>
    <message>
        <source>Half (fp16)</source>
        <translation>半精度 (fp16)</translation>
    </message>
    <message>
        <source>Single (float32)</source>
        <translation>单精度 (float32)</translation>
    </message>
    <message>
        <source>“%1”</source>
        <comment>a setting&apos;s name in a sentence</comment>
        <translation>“%1”</translation>
    </message>
    <message>
        <source>%1 must be at least 0 and below 1.</source>
        <translation>%1 必须大于等于 0 且小于 1。</translation>
    </message>
    <message>
        <source>%1 must be greater than 0 and at most 1.</source>
        <translation>%1 必须大于 0 且不超过 1。</translation>
    </message>
    <message>
        <source>%1 must not be negative.</source>
        <translation>%1 不能为负数。</translation>
    </message>
    <message>
        <source>%1 must be at least 1.</source>
        <translation>%1 必须至少为 1。</translation>
    </message>
    <message>
        <source>%1 must be greater than 0.</source>
        <translation>%1 必须大于 0。</translation>
    </message>
    <message>
        <source>%1 must be at least 0 and at most 1.</source>
        <translation>%1 必须介于 0 和 1 之间（含）。</translation>
    </message>
    <message>
        <source>The turn format the model was trained on: automatic uses the one the open model&apos;s chat template names. No system prompt is added unless you set one</source>
        <translation>模型训练时使用的轮次格式：自动即使用当前打开模型的聊天模板所指定的格式。除非你设置，否则不会添加系统提示</translation>
    </message>
    <message>
        <source>The compression settings cannot be used: %1</source>
        <translation>无法使用这些压缩设置：%1</translation>
    </message>
    <message>
        <source>Automatic (%1)</source>
        <comment>the prompt format the open model names</comment>
        <translation>自动（%1）</translation>
    </message>
    <message>
        <source>The compression is %1: these settings are not used.</source>
        <translation>当前压缩方式为 %1：这些设置不会被使用。</translation>
    </message>
    <message>
        <source>The compression is %1: these settings only set its budget, how many entries it may keep (as many as PyramidInfer would); %1 chooses which.</source>
        <translation>当前压缩方式为 %1：这些设置只决定它的预算，即可保留多少条目（与 PyramidInfer 相同）；保留哪些由 %1 决定。</translation>
    </message>
    <message>
        <source>pyramid: PyramidInfer; full: no compression; local, h2o, snapkv, pyramidkv: baselines with PyramidInfer&apos;s budget</source>
        <translation>pyramid：PyramidInfer；full：不压缩；local、h2o、snapkv、pyramidkv：使用 PyramidInfer 预算的基线方法</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Light or dark colours, or those of the system; it changes at once</source>
        <translation>浅色、深色或跟随系统的颜色；更改立即生效</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Share of the cache kept</source>
        <translation>保留的缓存比例</translation>
    </message>
    <message>
        <source>For local, h2o, snapkv and pyramidkv: the share of a full cache they keep (0: as much as PyramidInfer keeps)</source>
        <translation>适用于 local、h2o、snapkv 和 pyramidkv：保留完整缓存的比例（0：与 PyramidInfer 保留的一样多）</translation>
    </message>
    <message>
        <source>%1, keeps %2% of the cache: %3% perplexity, recalls %4% of what the full cache recalls (measured on SmolLM2-135M-Instruct)</source>
        <translation>%1，保留 %2% 的缓存：困惑度 %3%，能回忆起完整缓存所能回忆内容的 %4%（在 SmolLM2-135M-Instruct 上测得）</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Serve this model on localhost</source>
        <translation>在 localhost 上提供此模型</translation>
    </message>
    <message>
        <source>Other programs on this computer (editors, scripts, OpenAI clients) can use the open model over an OpenAI-compatible API; your own replies come first</source>
        <translation>本机上的其他程序（编辑器、脚本、OpenAI 客户端）可以通过兼容 OpenAI 的 API 使用已打开的模型；您自己的回复优先</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>The TCP port on 127.0.0.1 the server listens on</source>
        <translation>服务器在 127.0.0.1 上监听的 TCP 端口</translation>
    </message>
    <message>
        <source>The server port must be between 1 and 65535.</source>
        <translation>服务器端口必须在 1 到 65535 之间。</translation>
    </message>
    <message>
        <source>8-bit (q8, about half of fp16)</source>
        <translation>8 位（q8，约为 fp16 的一半）</translation>
    </message>
    <message>
        <source>4-bit (q4, about a quarter of fp16)</source>
        <translation>4 位（q4，约为 fp16 的四分之一）</translation>
    </message>
    <message>
        <source>Values stored as</source>
        <translation>值的存储方式</translation>
    </message>
    <message>
        <source>The values of the cache in another precision than its keys (on SmolLM2 the values carry most of 8-bit&apos;s cost); it changes the next time the app starts</source>
        <translation>缓存的值使用与键不同的精度（在 SmolLM2 上，8 位的代价主要来自值）；下次启动应用时生效</translation>
    </message>
    <message>
        <source>As the keys</source>
        <translation>与键相同</translation>
    </message>
    <message>
        <source>8-bit (q8)</source>
        <translation>8 位（q8）</translation>
    </message>
    <message>
        <source>4-bit (q4)</source>
        <translation>4 位（q4）</translation>
    </message>
    <message>
        <source>Cache precision</source>
        <translation>缓存精度</translation>
    </message>
    <message>
        <source>How the KV cache is stored: half precision takes half the memory of single precision, 8-bit about a quarter, 4-bit about an eighth; single precision is exact, and a GPU stores half precision in its place (8 and 4 bits need heads of a multiple of 32 values); it changes the next time the app starts</source>
        <translation>KV 缓存的存储方式：半精度占单精度一半的内存，8 位约四分之一，4 位约八分之一；单精度是精确的，GPU 以半精度代替单精度存储（8 位和 4 位要求注意力头的维数是 32 的倍数）；下次启动应用时生效</translation>
    </message>
    <message>
        <source>%1 must be an odd number, at least 1.</source>
        <translation>%1 必须是不小于 1 的奇数。</translation>
    </message>
    <message>
        <source>Scoring window</source>
        <translation>评分窗口</translation>
    </message>
    <message>
        <source>Score the prompt by the attention of this many of its last tokens (0: the whole recent window, as in the paper)</source>
        <translation>按提示最后这么多个词元的注意力为提示评分（0：整个近期窗口，与论文相同）</translation>
    </message>
    <message>
        <source>Score pooling</source>
        <translation>评分平滑</translation>
    </message>
    <message>
        <source>Average each entry&apos;s score over this many neighbouring entries, so that an entry&apos;s neighbours are kept with it (odd; 1: none, as in the paper)</source>
        <translation>将每个条目的评分在这么多个相邻条目上取平均，使条目的相邻条目与它一同保留（奇数；1：不平滑，与论文相同）</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>How many threads a model on the CPU runs on. Automatic: one per physical core of the fastest kind; a core&apos;s second hardware thread and efficiency cores would slow the others down. It changes the next time the app starts</source>
        <translation>模型在 CPU 上运行时使用的线程数。自动：最快类型的每个物理核心一个线程；核心的第二个硬件线程和能效核心会拖慢其他线程。下次启动应用时生效</translation>
    </message>
    <message>
        <source>Automatic (one per performance core)</source>
        <translation>自动（每个性能核心一个）</translation>
    </message>
    <message>
        <source>Balanced</source>
        <comment>a compression preset</comment>
        <translation>均衡</translation>
    </message>
    <message>
        <source>Recall</source>
        <comment>a compression preset: keeps what earlier turns said</comment>
        <translation>记忆优先</translation>
    </message>
    <message>
        <source>Most memory saved</source>
        <comment>a compression preset</comment>
        <translation>最省内存</translation>
    </message>
    <message>
        <source>Paper, 7B settings</source>
        <comment>a compression preset: PyramidInfer as its paper ran a 7B model</comment>
        <translation>论文 7B 设置</translation>
    </message>
    <message>
        <source>Paper, 13B settings</source>
        <comment>a compression preset: PyramidInfer as its paper ran a 13B model</comment>
        <translation>论文 13B 设置</translation>
    </message>
    <message>
        <source>%1 (default)</source>
        <comment>the compression preset a chat starts with</comment>
        <translation>%1（默认）</translation>
    </message>
    <message>
        <source>Let web pages use it</source>
        <translation>允许网页使用</translation>
    </message>
    <message>
        <source>Browser extensions and web-based chat clients may call the server. Any web page you open could then use the model: leave it off unless such a client needs it</source>
        <translation>浏览器扩展和基于网页的聊天客户端可以调用此服务器。这样您打开的任何网页都能使用该模型：除非确有此类客户端需要，否则请保持关闭</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Start a new line</source>
        <translation>换行</translation>
    </message>
    <message>
        <source>Stop the reply; without one, cancel an edit</source>
        <translation>停止回复；没有回复时取消编辑</translation>
    </message>
    <message>
        <source>Read the conversation up or down from the message box</source>
        <translation>在消息框中向上或向下浏览对话</translation>
    </message>
    <message>
        <source>Go to the start or end of the message; again, of the conversation</source>
        <translation>跳到消息的开头或结尾；再按一次则跳到对话的开头或结尾</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新聊天</translation>
    </message>
    <message>
        <source>Search the conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Previous or next conversation</source>
        <translation>上一个或下一个对话</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>This list</source>
        <translation>本列表</translation>
    </message>
    <message>
        <source>Quit (a running reply is kept as stopped)</source>
        <translation>退出（正在生成的回复将保存为已停止）</translation>
    </message>
    <message>
        <source>Enter or Ctrl+Enter</source>
        <comment>keys</comment>
        <translation>Enter 或 Ctrl+Enter</translation>
    </message>
    <message>
        <source>Shift+Enter</source>
        <comment>keys</comment>
        <translation>Shift+Enter</translation>
    </message>
    <message>
        <source>Esc</source>
        <comment>keys</comment>
        <translation>Esc</translation>
    </message>
    <message>
        <source>PgUp or PgDown</source>
        <comment>keys</comment>
        <translation>PgUp 或 PgDown</translation>
    </message>
    <message>
        <source>Ctrl+Home or Ctrl+End</source>
        <comment>keys</comment>
        <translation>Ctrl+Home 或 Ctrl+End</translation>
    </message>
    <message>
        <source>Ctrl+N</source>
        <comment>keys</comment>
        <translation>Ctrl+N</translation>
    </message>
    <message>
        <source>Ctrl+F</source>
        <comment>keys</comment>
        <translation>Ctrl+F</translation>
    </message>
    <message>
        <source>Ctrl+PgUp or Ctrl+PgDown</source>
        <comment>keys</comment>
        <translation>Ctrl+PgUp 或 Ctrl+PgDown</translation>
    </message>
    <message>
        <source>Ctrl+O</source>
        <comment>keys</comment>
        <translation>Ctrl+O</translation>
    </message>
    <message>
        <source>Ctrl+,</source>
        <comment>keys</comment>
        <translation>Ctrl+,</translation>
    </message>
    <message>
        <source>F1</source>
        <comment>keys</comment>
        <translation>F1</translation>
    </message>
    <message>
        <source>Ctrl+Q</source>
        <comment>keys</comment>
        <translation>Ctrl+Q</translation>
    </message>
</context>
<context>
    <name>SingleInstance</name>
    <message>
        <source>Another PyramidChat (process %1 on %2) is using this user&apos;s conversations but does not answer. If it is not running any more, delete %3 and start PyramidChat again.</source>
        <translation>另一个 PyramidChat（%2 上的进程 %1）正在使用此用户的对话，但没有响应。如果它已不再运行，请删除 %3 并重新启动 PyramidChat。</translation>
    </message>
</context>
<context>
    <name>StoreProblem</name>
    <message>
        <source>PyramidChat — the conversations cannot be opened</source>
        <translation>PyramidChat — 无法打开对话</translation>
    </message>
    <message>
        <source>PyramidChat cannot open the file that holds your conversations.</source>
        <translation>PyramidChat 无法打开保存您对话的文件。</translation>
    </message>
    <message>
        <source>You can quit and keep the file as it is (to copy it somewhere safe, or to open it with a newer PyramidChat), or set it aside and start with no conversations. Setting it aside only renames the file, in %1; nothing is deleted.</source>
        <translation>您可以退出并保持该文件原样（以便将其复制到安全的位置，或用较新版本的 PyramidChat 打开），也可以将其搁置，从空白的对话开始。搁置只会重命名 %1 中的文件，不会删除任何内容。</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Set it aside and start fresh</source>
        <translation>搁置并重新开始</translation>
    </message>
</context>
<context>
    <name>StoreRecovery</name>
    <message>
        <source>Could not rename %1 to %2: %3</source>
        <translation>无法将 %1 重命名为 %2：%3</translation>
    </message>
    <message>
        <source>the name is taken</source>
        <translation>该名称已被占用</translation>
    </message>
    <message>
        <source>There is no file to set aside at %1.</source>
        <translation>%1 处没有可搁置的文件。</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Open this GGUF file or Hugging Face folder.</source>
        <translation>打开此 GGUF 文件或 Hugging Face 文件夹。</translation>
    </message>
    <message>
        <source>path</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>Chat with LLaMA-family models on this machine, with PyramidInfer KV-cache compression.</source>
        <translation>在本机与 LLaMA 系列模型聊天，并使用 PyramidInfer 压缩 KV 缓存。</translation>
    </message>
</context>
</TS>
