<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>CacheStatsModel</name>
    <message numerus="yes">
        <source>CPU, %n thread(s), %1 KV cache</source>
        <translation>
            <numerusform>CPU, %n thread, %1 KV cache</numerusform>
            <numerusform>CPU, %n threads, %1 KV cache</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message numerus="yes">
        <source>The conversation outgrew the model&apos;s context: the oldest %n exchange(s) were left out of the prompt.</source>
        <translation>
            <numerusform>The conversation outgrew the model&apos;s context: the oldest %n exchange was left out of the prompt.</numerusform>
            <numerusform>The conversation outgrew the model&apos;s context: the oldest %n exchanges were left out of the prompt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The context was full: the oldest %n position(s) were dropped and the rest renumbered.</source>
        <translation>
            <numerusform>The context was full: the oldest %n position was dropped and the rest renumbered.</numerusform>
            <numerusform>The context was full: the oldest %n positions were dropped and the rest renumbered.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MessageListModel</name>
    <message numerus="yes">
        <source>%n token(s) · %1 tokens/s · first token %2 ms</source>
        <translation>
            <numerusform>%n token · %1 tokens/s · first token %2 ms</numerusform>
            <numerusform>%n tokens · %1 tokens/s · first token %2 ms</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelFileInfo</name>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n layer</numerusform>
            <numerusform>%n layers</numerusform>
        </translation>
    </message>
</context>
</TS>
