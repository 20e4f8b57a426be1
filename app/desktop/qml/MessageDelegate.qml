// One message: who wrote it, its text (Markdown prose and code blocks with a copy button),
// for replies the tokens, speed and time to first token, and under a reply a system line
// when the engine had to change the conversation to fit it (turns dropped, positions renumbered).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Item {
    id: message

    required property string role
    required property string text
    required property var segments
    required property bool streaming
    required property bool stopped
    required property string finishNote
    required property string statsText
    required property string notice
    required property int versionCount
    required property int versionIndex
    required property var clipboard
    required property var chat
    required property int index

    readonly property bool fromUser: role === "user"
    readonly property string author: fromUser ? qsTr("You") : qsTr("Assistant")
    // Says which message a Copy button copies: many look alike to a screen reader.
    readonly property string excerpt: {
        const flat = text.slice(0, 200).replace(/\s+/g, " ").trim()  // a long reply streams: cut first
        return flat.length > 40 ? flat.slice(0, 40) + "…" : flat
    }
    // Small print, relative to the system font so its size setting applies.
    readonly property real smallPointSize: Qt.application.font.pointSize * 0.85

    // Tab reaches the Copy buttons: scroll the one with focus into the list's view.
    function reveal(item) {
        const view = message.ListView.view
        if (!view)
            return
        const p = item.mapToItem(view, 0, 0)
        if (p.y < 0)
            view.contentY += p.y - 8
        else if (p.y + item.height > view.height)
            view.contentY += p.y + item.height - view.height + 8
        if (typeof view.showsEnd === "function")  // the chat's list (ChatView.qml)
            view.following = view.showsEnd()  // reading back stops the follow, as a mouse scroll does
    }

    implicitHeight: bubble.height + (noticeLine.visible ? noticeLine.height + 6 : 0)

    SystemPalette { id: pal }

    Rectangle {
        id: bubble
        x: message.fromUser ? message.width - width - 12 : 12
        // Replies use the full width; the user's messages hug their text, right-aligned.
        width: message.fromUser ? Math.min(message.width * 0.8, Math.max(body.implicitWidth + 24, 160))
                                : message.width - 24
        height: body.implicitHeight + 20
        radius: 8
        color: message.fromUser ? Qt.tint(pal.base, Qt.rgba(pal.highlight.r, pal.highlight.g, pal.highlight.b, 0.18))
                                : pal.alternateBase
        border.color: Qt.tint(pal.base, Qt.rgba(pal.text.r, pal.text.g, pal.text.b, 0.15))

        ColumnLayout {
            id: body
            x: 12
            y: 10
            width: bubble.width - 24
            spacing: 6

            RowLayout {
                Layout.fillWidth: true
                Label {
                    textFormat: Text.PlainText
                    text: message.author
                    font.bold: true
                    Layout.fillWidth: true
                }
                BusyIndicator {
                    visible: message.streaming
                    running: message.streaming
                    Layout.preferredWidth: 20
                    Layout.preferredHeight: 20
                    Accessible.name: qsTr("Reply in progress")
                }
                ToolButton {
                    id: copyMessage
                    objectName: "copyMessage"
                    // "Copied" for a moment after the click, so it is seen to have worked.
                    property bool copied: false
                    text: copied ? qsTr("Copied") : qsTr("Copy")
                    visible: !message.streaming && message.text !== ""
                    font.pointSize: message.smallPointSize
                    onClicked: {
                        message.clipboard.copy(message.text)
                        copied = true
                        copiedMessageTimer.restart()
                    }
                    Timer {
                        id: copiedMessageTimer
                        interval: 1500
                        onTriggered: copyMessage.copied = false
                    }
                    onActiveFocusChanged: if (activeFocus) message.reveal(this)
                    Accessible.name: qsTr("Copy, %1: %2").arg(message.author).arg(message.excerpt)
                    Accessible.description: qsTr("Copy the message")
                }
                // Versions: "‹ 2/3 ›" on a regenerated reply, pageable on the last one; on an
                // edited question, pageable anywhere, each with the conversation that followed it.
                Row {
                    objectName: "versions"
                    visible: message.versionCount > 1 && !message.streaming
                    readonly property bool pageable: !message.chat.busy && message.ListView.view !== null
                                                     && (message.fromUser || message.index === message.ListView.view.count - 1)
                    ToolButton {
                        objectName: "olderVersion"
                        text: "‹"
                        enabled: parent.pageable && message.versionIndex > 0
                        font.pointSize: message.smallPointSize
                        onClicked: message.chat.showVersion(message.index, -1)
                        Accessible.name: qsTr("Earlier version")
                    }
                    Label {
                        objectName: "versionLabel"
                        textFormat: Text.PlainText
                        text: qsTr("%1/%2", "version of a reply").arg(message.versionIndex + 1).arg(message.versionCount)
                        font.pointSize: message.smallPointSize
                        anchors.verticalCenter: parent.verticalCenter
                    }
                    ToolButton {
                        objectName: "newerVersion"
                        text: "›"
                        enabled: parent.pageable && message.versionIndex < message.versionCount - 1
                        font.pointSize: message.smallPointSize
                        onClicked: message.chat.showVersion(message.index, 1)
                        Accessible.name: qsTr("Later version")
                    }
                }
                ToolButton {
                    objectName: "editMessage"
                    text: qsTr("Edit")
                    visible: message.fromUser && !message.streaming
                    enabled: message.chat.canSend
                    font.pointSize: message.smallPointSize
                    onClicked: message.chat.beginEdit(message.index)
                    onActiveFocusChanged: if (activeFocus) message.reveal(this)
                    Accessible.name: qsTr("Edit, %1: %2").arg(message.author).arg(message.excerpt)
                    Accessible.description: qsTr("Edit this message and send it again; the conversation goes on from there")
                }
                ToolButton {
                    objectName: "deleteMessage"
                    text: qsTr("Delete")
                    visible: !message.streaming
                    enabled: !message.chat.busy
                    font.pointSize: message.smallPointSize
                    onClicked: message.chat.deleteMessage(message.index)
                    onActiveFocusChanged: if (activeFocus) message.reveal(this)
                    Accessible.name: qsTr("Delete, %1: %2").arg(message.author).arg(message.excerpt)
                    Accessible.description: qsTr("Delete this message from the conversation")
                }
            }

            Repeater {
                model: message.segments
                delegate: ColumnLayout {
                    id: segment
                    required property bool code
                    required property bool quote
                    required property string text
                    required property string language
                    required property string html  // a reply's prose, rendered without HTML or images
                    required property string codeLight  // the code coloured; empty: shown plain
                    required property string codeDark
                    // The scheme that keeps its contrast on this palette's code background.
                    readonly property string codeHtml: pal.base.hslLightness < 0.5 ? codeDark : codeLight
                    Layout.fillWidth: true

                    // Prose, or a block quote: the same text with a bar before it.
                    RowLayout {
                        visible: !segment.code
                        spacing: 9
                        Layout.fillWidth: true
                        Rectangle {
                            objectName: "quoteBar"
                            visible: segment.quote
                            radius: 1.5
                            color: Qt.rgba(pal.text.r, pal.text.g, pal.text.b, 0.4)
                            Layout.preferredWidth: 3
                            Layout.fillHeight: true
                        }
                        TextEdit {
                            objectName: segment.quote ? "quoteText" : "proseText"
                            text: segment.code ? "" : (message.fromUser ? segment.text : segment.html)
                            textFormat: message.fromUser ? TextEdit.PlainText : TextEdit.RichText
                            wrapMode: TextEdit.Wrap
                            readOnly: true
                            selectByMouse: true
                            color: pal.text
                            selectionColor: pal.highlight
                            selectedTextColor: pal.highlightedText
                            Layout.fillWidth: true
                            Accessible.name: getText(0, length)
                            Accessible.role: Accessible.StaticText
                        }
                    }

                    Rectangle {
                        visible: segment.code
                        implicitHeight: code.implicitHeight + codeHeader.implicitHeight + 12
                        radius: 4
                        color: Qt.tint(pal.base, Qt.rgba(pal.text.r, pal.text.g, pal.text.b, 0.07))
                        border.color: Qt.tint(pal.base, Qt.rgba(pal.text.r, pal.text.g, pal.text.b, 0.2))
                        Layout.fillWidth: true

                        RowLayout {
                            id: codeHeader
                            x: 8
                            y: 2
                            width: parent.width - 16
                            Label {
                                textFormat: Text.PlainText
                                text: segment.language !== "" ? segment.language : qsTr("code")
                                font.pointSize: message.smallPointSize
                                opacity: 0.7
                                Layout.fillWidth: true
                            }
                            ToolButton {
                                id: copyCode
                                property bool copied: false  // as the message's Copy button
                                text: copied ? qsTr("Copied") : qsTr("Copy code")
                                font.pointSize: message.smallPointSize
                                onClicked: {
                                    message.clipboard.copy(segment.text)
                                    copied = true
                                    copiedCodeTimer.restart()
                                }
                                Timer {
                                    id: copiedCodeTimer
                                    interval: 1500
                                    onTriggered: copyCode.copied = false
                                }
                                onActiveFocusChanged: if (activeFocus) message.reveal(this)
                                Accessible.name: qsTr("Copy code, %1: %2").arg(message.author)
                                                     .arg(segment.language !== "" ? segment.language : message.excerpt)
                                Accessible.description: qsTr("Copy the code")
                            }
                        }
                        TextEdit {
                            id: code
                            x: 8
                            y: codeHeader.y + codeHeader.height + 2
                            width: parent.width - 16
                            objectName: "codeText"
                            text: segment.code ? (segment.codeHtml !== "" ? segment.codeHtml : segment.text) : ""
                            textFormat: segment.codeHtml !== "" ? TextEdit.RichText : TextEdit.PlainText
                            font.family: "monospace"
                            wrapMode: TextEdit.WrapAnywhere
                            readOnly: true
                            selectByMouse: true
                            color: pal.text
                            selectionColor: pal.highlight
                            selectedTextColor: pal.highlightedText
                            Accessible.name: qsTr("Code")
                        }
                    }
                }
            }

            Label {
                textFormat: Text.PlainText
                visible: message.streaming && message.text === ""
                text: qsTr("Thinking…")
                opacity: 0.7
            }

            RowLayout {
                visible: message.statsText !== "" || message.finishNote !== ""
                spacing: 10
                Layout.fillWidth: true
                Label {
                    textFormat: Text.PlainText
                    text: message.statsText
                    font.pointSize: message.smallPointSize
                    opacity: 0.7
                }
                Label {
                    textFormat: Text.PlainText
                    text: message.finishNote
                    font.pointSize: message.smallPointSize
                    font.italic: true
                    // Orange that keeps 4.5:1 contrast on the bubble, a tint of base: dark on light, light on dark.
                    color: message.stopped ? (pal.base.hslLightness < 0.5 ? "#ffb74d" : "#8a4b00") : pal.text
                }
            }
        }
    }

    Row {
        id: noticeLine
        visible: message.notice !== ""
        x: bubble.x + 8
        y: bubble.height + 6
        width: bubble.width - 16
        spacing: 6

        Rectangle {
            width: 3
            height: noticeText.height
            radius: 1
            color: pal.highlight
        }
        Label {
            id: noticeText
            textFormat: Text.PlainText
            text: message.notice
            width: noticeLine.width - 9
            wrapMode: Text.Wrap
            font.pointSize: message.smallPointSize
            font.italic: true
            opacity: 0.8
            Accessible.name: qsTr("System note: %1").arg(message.notice)
        }
    }
}
