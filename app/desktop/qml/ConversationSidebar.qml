// The conversation list: new chat, search, select, rename, export, delete with undo.
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts

Pane {
    id: sidebar

    required property var conversations

    // The conversation a menu or dialog acts on.
    property var actionId: 0
    property string actionTitle: ""
    property string exportFormat: "markdown"
    property url exportFile  // chosen in the dialog, written once a replace is confirmed

    // Ctrl+F (Main.qml): the search field takes the keyboard, its text selected to type over.
    function focusSearch() {
        searchField.forceActiveFocus(Qt.ShortcutFocusReason)
        searchField.selectAll()
    }

    // Offers the documents folder and the conversation's title as the name.
    function startExport(format) {
        sidebar.exportFormat = format
        const suggested = sidebar.conversations.suggestedExportFile(sidebar.actionId, format)
        exportDialog.currentFolder = suggested.toString().substring(0, suggested.toString().lastIndexOf("/"))
        exportDialog.selectedFile = suggested
        exportDialog.open()
    }
    // The file chosen in the export dialog: written at once, or once the user agrees to replace it.
    function exportChosen(file) {
        sidebar.exportFile = file
        if (sidebar.conversations.fileExists(file))
            replaceDialog.open()
        else
            sidebar.writeExport()
    }
    function writeExport() {
        const problem = sidebar.conversations.exportConversation(sidebar.actionId, sidebar.exportFile, sidebar.exportFormat)
        exportResult.title = problem !== "" ? qsTr("Export failed") : qsTr("Exported")
        exportResult.text = problem !== "" ? problem
                                           : qsTr("The conversation was saved as %1.").arg(sidebar.conversations.localPath(sidebar.exportFile))
        exportResult.open()
    }
    // A Markdown or JSON export chosen in the import dialog becomes a new conversation, shown.
    function importChosen(file) {
        const problem = sidebar.conversations.importConversation(file)
        if (problem !== "") {
            exportResult.title = qsTr("Import failed")
            exportResult.text = problem
            exportResult.open()
        }
    }

    padding: 8

    SystemPalette { id: pal }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        RowLayout {
            spacing: 4
            Layout.fillWidth: true
            Button {
                text: qsTr("New chat")
                icon.name: "document-new"
                onClicked: sidebar.conversations.createConversation()
                Layout.fillWidth: true
                Accessible.name: qsTr("New chat")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Start a new conversation (Ctrl+N)")
            }
            Button {
                text: qsTr("Import…")
                onClicked: importDialog.open()
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: qsTr("Read a Markdown or JSON export back as a conversation")
                ToolTip.visible: hovered
                ToolTip.text: Accessible.description
            }
        }

        TextField {
            id: searchField
            objectName: "searchField"
            placeholderText: qsTr("Search conversations (Ctrl+F)")
            text: sidebar.conversations.searchText
            onTextEdited: sidebar.conversations.searchText = text
            selectByMouse: true
            Layout.fillWidth: true
            Accessible.name: qsTr("Search conversations")
        }

        ListView {
            id: list
            model: sidebar.conversations
            clip: true
            spacing: 2
            Layout.fillWidth: true
            Layout.fillHeight: true
            Accessible.name: qsTr("Conversations")
            ScrollBar.vertical: ScrollBar {}

            delegate: ItemDelegate {
                id: row
                required property int index
                required property var conversationId
                required property string title
                required property string updated
                required property bool current

                width: ListView.view.width
                highlighted: current
                // Rows are Tab stops (Space or Enter opens one), not just their ⋯ buttons.
                focusPolicy: Qt.StrongFocus
                onClicked: sidebar.conversations.currentId = conversationId
                Keys.onReturnPressed: clicked()
                Keys.onEnterPressed: clicked()
                onActiveFocusChanged: if (activeFocus) ListView.view.positionViewAtIndex(index, ListView.Contain)
                Accessible.name: title

                // Fusion draws no focus mark on an ItemDelegate: show where the keyboard is.
                Rectangle {
                    anchors.fill: parent
                    visible: row.visualFocus
                    color: "transparent"
                    radius: 2
                    border.width: 2
                    border.color: row.highlighted ? pal.highlightedText : pal.highlight
                }

                contentItem: RowLayout {
                    spacing: 4
                    ColumnLayout {
                        spacing: 0
                        Layout.fillWidth: true
                        Label {
                            textFormat: Text.PlainText
                            text: row.title
                            elide: Text.ElideRight
                            font.bold: row.current
                            color: row.highlighted ? pal.highlightedText : pal.text
                            Layout.fillWidth: true
                        }
                        Label {
                            textFormat: Text.PlainText
                            text: row.updated
                            font.pointSize: Qt.application.font.pointSize * 0.8  // follows the system font size
                            opacity: 0.7
                            color: row.highlighted ? pal.highlightedText : pal.text
                        }
                    }
                    ToolButton {
                        id: menuButton
                        text: "⋯"
                        onClicked: {
                            sidebar.actionId = row.conversationId
                            sidebar.actionTitle = row.title
                            // Under the button, not at the mouse pointer, which a keyboard user never moved.
                            const below = menuButton.mapToItem(rowMenu.parent, 0, menuButton.height)
                            rowMenu.popup(below.x, below.y)
                        }
                        // Enter opens the menu too, rather than reaching the row (which would select it).
                        Keys.onReturnPressed: clicked()
                        Keys.onEnterPressed: clicked()
                        Accessible.name: qsTr("Actions for %1").arg(row.title)
                    }
                }
            }

            Label {
                textFormat: Text.PlainText
                anchors.centerIn: parent
                visible: list.count === 0
                text: sidebar.conversations.searchText === "" ? qsTr("No conversations") : qsTr("Nothing found")
                opacity: 0.7
            }
        }

        Frame {
            visible: sidebar.conversations.canUndoRemove
            Layout.fillWidth: true
            // Announced when it appears, so a screen reader hears that Undo is possible.
            Accessible.role: Accessible.AlertMessage
            Accessible.name: sidebar.conversations.undoText
            RowLayout {
                anchors.fill: parent
                Label {
                    textFormat: Text.PlainText
                    text: sidebar.conversations.undoText
                    elide: Text.ElideRight
                    Layout.fillWidth: true
                }
                Button {
                    text: qsTr("Undo")
                    onClicked: sidebar.conversations.undoRemove()
                    Accessible.name: qsTr("Undo delete")
                }
            }
        }
    }

    Menu {
        id: rowMenu
        MenuItem {
            text: qsTr("Rename…")
            onTriggered: {
                renameField.text = sidebar.actionTitle
                renameDialog.open()
            }
        }
        MenuItem {
            text: qsTr("Export as Markdown…")
            onTriggered: sidebar.startExport("markdown")
        }
        MenuItem {
            text: qsTr("Export as JSON…")
            onTriggered: sidebar.startExport("json")
        }
        MenuSeparator {}
        MenuItem {
            text: qsTr("Delete")
            onTriggered: sidebar.conversations.remove(sidebar.actionId)
        }
    }

    Dialog {
        id: renameDialog
        objectName: "renameDialog"
        title: qsTr("Rename conversation")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        standardButtons: Dialog.Ok | Dialog.Cancel
        onAccepted: sidebar.conversations.rename(sidebar.actionId, renameField.text)
        // Ready to type over: the old title selected in the focused field.
        onOpened: {
            renameField.selectAll()
            renameField.forceActiveFocus()
        }
        // Sized through implicitWidth, which the dialog measures: a plain width overflows it.
        contentItem: TextField {
            id: renameField
            objectName: "renameField"
            implicitWidth: 320
            selectByMouse: true
            onAccepted: renameDialog.accept()
            Accessible.name: qsTr("New title")
        }
    }

    FileDialog {
        id: exportDialog
        objectName: "exportDialog"
        title: qsTr("Export conversation")
        fileMode: FileDialog.SaveFile
        acceptLabel: qsTr("Export")
        // Replacing a file is asked below, the same way for every platform's dialog.
        options: FileDialog.DontConfirmOverwrite
        defaultSuffix: sidebar.exportFormat === "json" ? "json" : "md"
        nameFilters: sidebar.exportFormat === "json" ? [qsTr("JSON (*.json)")] : [qsTr("Markdown (*.md)")]
        onAccepted: sidebar.exportChosen(selectedFile)
    }

    FileDialog {
        id: importDialog
        objectName: "importDialog"
        title: qsTr("Import a conversation")
        fileMode: FileDialog.OpenFile
        nameFilters: [qsTr("Conversation exports (*.md *.json)"), qsTr("All files (*)")]
        onAccepted: sidebar.importChosen(selectedFile)
    }

    Dialog {
        id: replaceDialog
        objectName: "replaceDialog"
        title: qsTr("Replace the file?")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(parent.width - 40, 520)  // a set width: the text wraps in it
        standardButtons: Dialog.Yes | Dialog.No
        onAccepted: sidebar.writeExport()
        contentItem: Label {
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
            text: qsTr("%1 already exists. Replace it with this conversation?").arg(sidebar.conversations.localPath(sidebar.exportFile))
        }
    }

    Dialog {
        id: exportResult
        objectName: "exportResult"
        property alias text: exportResultLabel.text  // and the title: set by what it reports
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(parent.width - 40, 520)  // a set width: the text wraps in it
        standardButtons: Dialog.Ok
        contentItem: Label {
            id: exportResultLabel
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
        }
    }
}
