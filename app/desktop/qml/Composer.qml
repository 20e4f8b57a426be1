// Where the user writes: Enter or Ctrl+Enter sends, Shift+Enter adds a line. While a reply
// runs the send button becomes Stop; after it, the last reply can be regenerated and any of
// the user's messages edited (Edit last here, Edit on a message) and sent again, which goes
// on from there while the earlier text stays a version of it. What is typed is the
// conversation's draft (chat.draft): it stays with that conversation when another one is
// shown, and is kept with it for the next start.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: composer

    required property var chat
    readonly property bool editing: chat.editing  // the text becomes a new version of a user message

    signal sent()
    // PageUp/PageDown read the history while the cursor stays here; so do Ctrl+Home/Ctrl+End
    // once the cursor is already at that end of the text (the first press moves it there).
    signal historyKey(int key)

    // The conversation on screen changed: its own draft replaces the text.
    function showDraft() {
        input.text = chat.draft
        input.cursorPosition = input.length
    }

    function submit() {
        const ok = editing ? chat.editAndResend(input.text) : chat.send(input.text)
        if (ok) {
            showDraft()  // a sent message leaves none; a resent edit gives back what was typed before
            sent()
        }
        input.forceActiveFocus()
    }

    // Typing goes to the message field; the buttons take focus only from Tab, so clicking one
    // (Send hides while the reply runs) never leaves the keyboard nowhere.
    function focusInput() {
        input.forceActiveFocus()
    }

    // Drops the edit and its text; the Cancel edit button and Esc (Main.qml) both end here.
    function cancelEdit() {
        chat.cancelEdit()
        showDraft()
        input.forceActiveFocus()
    }

    // An edit begun here or on a message brings the message's text, ready to go on typing.
    Connections {
        target: composer.chat
        function onEditingChanged() {
            if (!composer.chat.editing)
                return
            input.text = composer.chat.editedText
            input.cursorPosition = input.length
            input.forceActiveFocus()
        }
    }

    SystemPalette { id: pal }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        RowLayout {
            spacing: 6
            Layout.fillWidth: true

            Label {
                objectName: "composerNote"
                textFormat: Text.PlainText
                visible: composer.editing || composer.chat.busyElsewhere
                text: composer.editing ? qsTr("Editing your message: sending it goes on from there, and the earlier text stays as a version")
                                       : qsTr("A reply is still being written in another conversation: send when it is done, or stop it.")
                font.italic: true
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Item {
                visible: !composer.editing && !composer.chat.busyElsewhere
                Layout.fillWidth: true
            }
            Button {
                focusPolicy: Qt.TabFocus
                visible: composer.editing
                text: qsTr("Cancel edit")
                onClicked: composer.cancelEdit()
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: qsTr("Cancel editing and keep the message as it was (Esc)")
            }
            Button {
                objectName: "editLastButton"
                focusPolicy: Qt.TabFocus
                visible: !composer.editing
                text: qsTr("Edit last")
                enabled: composer.chat.canEditLast
                onClicked: composer.chat.beginEdit()
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: qsTr("Edit the last message and send it again")
            }
            Button {
                focusPolicy: Qt.TabFocus
                text: qsTr("Regenerate")
                enabled: composer.chat.canRegenerate
                onClicked: composer.chat.regenerate()
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: qsTr("Regenerate the last reply")
            }
        }

        Label {
            objectName: "contextWarning"
            textFormat: Text.PlainText
            visible: !composer.editing && composer.chat.contextWarning !== ""  // it reads the draft, not an edit
            text: composer.chat.contextWarning
            wrapMode: Text.Wrap
            Layout.fillWidth: true
            Accessible.role: Accessible.AlertMessage
            Accessible.name: text
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
                    // The text of an edit is not a draft: it belongs to the message edited.
                    onTextChanged: if (!composer.editing) composer.chat.draft = text
                    // Tab moves on instead of typing a tab, so the keyboard can leave the field.
                    Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                    Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                    Keys.onPressed: (event) => {
                        if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                && !(event.modifiers & Qt.ShiftModifier)) {
                            composer.submit()
                            event.accepted = true
                        } else if (event.key === Qt.Key_PageUp || event.key === Qt.Key_PageDown) {
                            composer.historyKey(event.key)
                            event.accepted = true
                        } else if ((event.modifiers & Qt.ControlModifier) && !(event.modifiers & Qt.ShiftModifier)
                                   && ((event.key === Qt.Key_Home && input.cursorPosition === 0)
                                       || (event.key === Qt.Key_End && input.cursorPosition === input.length))) {
                            composer.historyKey(event.key)
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
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: composer.editing ? qsTr("Replace the last message and send it again")
                                                         : qsTr("Send the message")
                Layout.alignment: Qt.AlignBottom
            }
            Button {
                focusPolicy: Qt.TabFocus
                objectName: "stopButton"
                visible: composer.chat.busy  // in another conversation too: the note above says whose reply
                text: qsTr("Stop")
                onClicked: composer.chat.stop()
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: qsTr("Stop the reply (Esc)")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Stop the reply (Esc)")
                Layout.alignment: Qt.AlignBottom
            }
        }
    }
}
