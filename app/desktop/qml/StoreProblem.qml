// Shown instead of the main window when the conversation database cannot be opened. The
// choices are StoreRecovery's; closing the window quits and leaves the file as it is.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ApplicationWindow {
    id: window

    required property var recovery

    width: 640
    height: 360
    minimumWidth: 480
    minimumHeight: 300
    visible: true
    title: qsTr("PyramidChat — the conversations cannot be opened")

    onClosing: recovery.quit()

    SystemPalette { id: pal }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 20
        spacing: 12

        Label {
            textFormat: Text.PlainText
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.bold: true
            text: qsTr("PyramidChat cannot open the file that holds your conversations.")
        }
        Label {
            objectName: "problem"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            text: window.recovery.problem
        }
        Label {
            Layout.fillWidth: true
            visible: window.recovery.canSetAside
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            text: qsTr("You can quit and keep the file as it is (to copy it somewhere safe, or to open it with a newer PyramidChat), or set it aside and start with no conversations. Setting it aside only renames the file, in %1; nothing is deleted.")
                  .arg(window.recovery.databasePath)
        }
        Label {
            objectName: "error"
            Layout.fillWidth: true
            visible: text.length > 0
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            color: pal.window.hslLightness < 0.5 ? "#ff8a80" : "#c62828"
            text: window.recovery.error
        }
        Item {
            Layout.fillHeight: true
        }
        RowLayout {
            Layout.alignment: Qt.AlignRight
            Button {
                objectName: "quit"
                text: qsTr("Quit")
                onClicked: window.recovery.quit()
            }
            Button {
                objectName: "setAside"
                visible: window.recovery.canSetAside
                text: qsTr("Set it aside and start fresh")
                highlighted: true
                onClicked: window.recovery.setAside()
            }
        }
    }
}
