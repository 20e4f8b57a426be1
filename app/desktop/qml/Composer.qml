// Where the user writes: Enter or Ctrl+Enter sends, Shift+Enter adds a line. While a reply
// runs the send button becomes Stop; after it, the last reply can be regenerated and the
// last message edited and sent again.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: composer

    required property var chat
    readonly property bool editing: chat.editing  // the text replaces the last user message

    signal sent()

    function submit() {
        const ok = editing ? chat.editAndResend(input.text) : chat.send(input.text)
        if (ok) {
            input.clear()
            sent()
        }
        input.forceActiveFocus()
    }

    // Typing goes to the message field; the buttons take focus only from Tab, so clicking one
    // (Send hides while the reply runs) never leaves the keyboard nowhere.
    function focusInput() {
        input.forceActiveFocus()
    }

    SystemPalette { id: pal }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        RowLayout {
            spacing: 6
            Layout.fillWidth: true

            Label {
                textFormat: Text.PlainText
                visible: composer.editing
                text: qsTr("Editing your last message")
                font.italic: true
                Layout.fillWidth: true
            }
            Item {
                visible: !composer.editing
                Layout.fillWidth: true
            }
            Button {
                focusPolicy: Qt.TabFocus
                visible: composer.editing
                text: qsTr("Cancel edit")
                onClicked: {
                    composer.chat.cancelEdit()
                    input.clear()
                    input.forceActiveFocus()
                }
                Accessible.name: qsTr("Cancel editing")
            }
            Button {
                focusPolicy: Qt.TabFocus
                visible: !composer.editing
                text: qsTr("Edit last")
                enabled: composer.chat.canEditLast
                onClicked: {
                    if (composer.chat.beginEdit()) {
                        input.text = composer.chat.lastUserText
                        input.forceActiveFocus()
                    }
                }
                Accessible.name: qsTr("Edit the last message")
            }
            Button {
                focusPolicy: Qt.TabFocus
                text: qsTr("Regenerate")
                enabled: composer.chat.canRegenerate
                onClicked: composer.chat.regenerate()
                Accessible.name: qsTr("Regenerate the last reply")
            }
        }

        RowLayout {
            spacing: 6
            Layout.fillWidth: true

            ScrollView {
                Layout.fillWidth: true
                Layout.preferredHeight: Math.min(Math.max(input.implicitHeight, 44), 160)
                background: Rectangle {
                    color: pal.base
                    radius: 3
                    border.color: input.activeFocus ? pal.highlight : Qt.rgba(pal.text.r, pal.text.g, pal.text.b, 0.3)
                }

                TextArea {
                    id: input
                    objectName: "composerInput"
                    placeholderText: qsTr("Message")
                    wrapMode: TextEdit.Wrap
                    selectByMouse: true
                    focus: true
                    Accessible.name: qsTr("Message")
                    Keys.onPressed: (event) => {
                        if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                && !(event.modifiers & Qt.ShiftModifier)) {
                            composer.submit()
                            event.accepted = true
                        }
                    }
                }
            }

            Button {
                focusPolicy: Qt.TabFocus
                visible: !composer.chat.busy
                text: composer.editing ? qsTr("Resend") : qsTr("Send")
                enabled: composer.chat.canSend && input.text.trim() !== ""
                highlighted: true
                onClicked: composer.submit()
                Accessible.name: qsTr("Send the message")
                Layout.alignment: Qt.AlignBottom
            }
            Button {
                focusPolicy: Qt.TabFocus
                visible: composer.chat.busy
                text: qsTr("Stop")
                onClicked: composer.chat.stop()
                Accessible.name: qsTr("Stop the reply")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Stop the reply (Esc)")
                Layout.alignment: Qt.AlignBottom
            }
        }
    }
}
