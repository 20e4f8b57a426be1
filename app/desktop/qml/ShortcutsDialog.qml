// Help -> Keyboard shortcuts (F1, or the toolbar's "?"): every key the window answers to, as
// Main.qml, Composer.qml and the lists bind them.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Dialog {
    id: dialog

    title: qsTr("Keyboard shortcuts")
    modal: true
    standardButtons: Dialog.Close
    parent: Overlay.overlay

    // Key names are translated as the keyboards print them ("Strg" in German).
    readonly property var rows: [
        [qsTr("Enter or Ctrl+Enter", "keys"), qsTr("Send the message")],
        [qsTr("Shift+Enter", "keys"), qsTr("Start a new line")],
        [qsTr("Esc", "keys"), qsTr("Stop the reply; without one, cancel an edit")],
        [qsTr("PgUp or PgDown", "keys"), qsTr("Read the conversation up or down from the message box")],
        [qsTr("Ctrl+Home or Ctrl+End", "keys"), qsTr("Go to the start or end of the message; again, of the conversation")],
        [qsTr("Ctrl+N", "keys"), qsTr("New chat")],
        [qsTr("Ctrl+F", "keys"), qsTr("Search the conversations")],
        [qsTr("Ctrl+PgUp or Ctrl+PgDown", "keys"), qsTr("Previous or next conversation")],
        [qsTr("Ctrl+O", "keys"), qsTr("Open a model file")],
        [qsTr("Ctrl+,", "keys"), qsTr("Settings")],
        [qsTr("F1", "keys"), qsTr("This list")],
        [qsTr("Ctrl+Q", "keys"), qsTr("Quit (a running reply is kept as stopped)")],
    ]

    contentItem: GridLayout {
        columns: 2
        columnSpacing: 16
        rowSpacing: 6
        Repeater {
            model: dialog.rows.length * 2
            delegate: Label {
                required property int index
                objectName: index % 2 === 0 ? "shortcutKeys" : "shortcutAction"
                textFormat: Text.PlainText
                text: dialog.rows[Math.floor(index / 2)][index % 2]
                font.bold: index % 2 === 0
                wrapMode: index % 2 === 0 ? Text.NoWrap : Text.Wrap
                Layout.fillWidth: index % 2 === 1
            }
        }
    }
}
