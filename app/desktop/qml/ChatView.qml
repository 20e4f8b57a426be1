// The conversation on screen: its messages (the last one streaming while a reply runs),
// errors from the engine, and the composer.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: view

    required property var conversations
    required property var messages
    required property var chat
    required property var clipboard

    padding: 0

    SystemPalette { id: pal }

    background: Rectangle { color: pal.base }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        Label {
            textFormat: Text.PlainText
            text: view.conversations.currentTitle
            font.pixelSize: 16
            font.bold: true
            elide: Text.ElideRight
            Layout.fillWidth: true
            Layout.margins: 12
            Layout.bottomMargin: 4
        }

        ListView {
            id: messageList
            model: view.messages
            clip: true
            spacing: 10
            topMargin: 8
            bottomMargin: 8
            Layout.fillWidth: true
            Layout.fillHeight: true
            Accessible.name: qsTr("Messages")
            ScrollBar.vertical: ScrollBar {}

            // Follow the reply as it grows, unless the user scrolled up to read.
            property bool following: true
            onMovementEnded: following = atYEnd
            onCountChanged: if (following) Qt.callLater(positionViewAtEnd)
            onContentHeightChanged: if (following) Qt.callLater(positionViewAtEnd)

            delegate: MessageDelegate {
                width: messageList.width
                clipboard: view.clipboard
            }

            Label {
                textFormat: Text.PlainText
                anchors.centerIn: parent
                width: parent.width * 0.7
                visible: messageList.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                opacity: 0.7
                text: qsTr("Type a message below to start. Enter sends, Shift+Enter starts a new line, Esc stops a reply.")
            }
        }

        Rectangle {
            visible: view.chat.error !== ""
            color: Qt.rgba(0.85, 0.2, 0.2, 0.18)
            Layout.fillWidth: true
            Layout.preferredHeight: chatError.implicitHeight + 8
            RowLayout {
                id: chatError
                anchors.fill: parent
                anchors.margins: 4
                Label {
                    textFormat: Text.PlainText
                    text: view.chat.error
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
                Button {
                    text: qsTr("Dismiss")
                    onClicked: view.chat.clearError()
                    Accessible.name: qsTr("Dismiss the error")
                }
            }
        }

        Composer {
            id: composer
            chat: view.chat
            onSent: messageList.following = true
            Layout.fillWidth: true
            Component.onCompleted: focusInput()
        }
        Connections {
            target: view.conversations
            function onCurrentIdChanged() { composer.focusInput() }
        }
    }
}
