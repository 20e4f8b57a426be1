// The toolbar: panel toggles, the open model (with load progress and cancel), the model
// menu and the settings button; load errors show in a strip below it.
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts

ToolBar {
    id: bar

    required property var models
    required property bool sidebarShown
    required property bool panelShown

    signal toggleSidebar()
    signal togglePanel()
    signal openSettings()
    signal openShortcuts()

    // Ctrl+O (Main.qml) does what the menu's "Open GGUF file…" does.
    function openModelFile() {
        fileDialog.open()
    }

    SystemPalette { id: pal }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        RowLayout {
            Layout.fillWidth: true
            Layout.leftMargin: 4
            Layout.rightMargin: 4
            spacing: 8

            ToolButton {
                text: "☰"
                checkable: true
                checked: bar.sidebarShown
                onClicked: bar.toggleSidebar()
                Accessible.name: qsTr("Show conversations")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Show or hide the conversations")
            }

            Image {
                source: "qrc:/pyramidchat/icons/pyramidchat.svg"
                sourceSize.width: 24
                sourceSize.height: 24
                Accessible.ignored: true
            }

            ColumnLayout {
                spacing: 0
                Layout.fillWidth: true
                Label {
                    textFormat: Text.PlainText
                    text: bar.models.loading ? qsTr("Opening %1…").arg(bar.models.loadingName)
                                             : bar.models.hasModel ? bar.models.modelName : qsTr("No model open")
                    font.bold: true
                    elide: Text.ElideRight
                    Layout.fillWidth: true
                }
                Label {
                    textFormat: Text.PlainText
                    visible: bar.models.hasModel && !bar.models.loading
                    text: qsTr("%1 · %2").arg(bar.models.modelSummary).arg(bar.models.backend)
                    opacity: 0.7
                    font.pointSize: Qt.application.font.pointSize * 0.85  // follows the system font size
                    elide: Text.ElideRight
                    Layout.fillWidth: true
                }
            }

            ProgressBar {
                visible: bar.models.loading
                value: bar.models.progress
                Layout.preferredWidth: 160
                Accessible.name: qsTr("Model loading progress")
            }
            Button {
                visible: bar.models.loading
                text: qsTr("Cancel")
                onClicked: bar.models.cancel()
                Accessible.name: qsTr("Cancel opening the model")
            }

            ToolButton {
                id: modelButton
                text: qsTr("Model ▾")
                enabled: !bar.models.loading
                onClicked: modelMenu.open()
                Accessible.name: qsTr("Model menu")

                Menu {
                    id: modelMenu
                    objectName: "modelMenu"
                    // As wide as its widest entry, so names and sizes are read whole (a Menu
                    // keeps its style's 200 pixels otherwise), within the window, under the
                    // button and growing leftwards from its right edge.
                    width: Math.min(widestEntry() + leftPadding + rightPadding, bar.Window.width - 16)
                    x: modelButton.width - width
                    y: modelButton.height
                    onAboutToShow: bar.models.rescan()  // pick up models copied in meanwhile

                    function widestEntry() {
                        let widest = 0
                        for (let i = 0; i < count; ++i) {
                            const entry = itemAt(i)
                            if (entry)
                                widest = Math.max(widest, entry.implicitWidth)
                        }
                        return widest
                    }

                    MenuItem {
                        text: qsTr("Open GGUF file…")
                        onTriggered: fileDialog.open()
                    }
                    MenuItem {
                        text: qsTr("Open Hugging Face folder…")
                        onTriggered: folderDialog.open()
                    }
                    MenuItem {
                        objectName: "modelsFolderItem"
                        text: qsTr("Show the models folder")
                        onTriggered: Qt.openUrlExternally(bar.models.modelsFolder())
                    }
                    MenuSeparator {}
                    MenuItem {
                        text: qsTr("Models found")
                        enabled: false
                    }
                    Instantiator {
                        model: bar.models.modelFiles
                        // The name and what it is; the open one checked; a file that is no
                        // model greyed, saying why.
                        delegate: MenuItem {
                            required property var modelData
                            objectName: "modelEntry"
                            text: modelData.usable ? qsTr("%1 — %2").arg(modelData.name).arg(modelData.summary)
                                                   : qsTr("%1 — cannot be opened: %2").arg(modelData.name).arg(modelData.problem)
                            enabled: modelData.usable
                            checkable: true
                            checked: modelData.path === bar.models.modelPath
                            // What it will take, before it is opened.
                            ToolTip.visible: hovered && modelData.memory !== ""
                            ToolTip.text: modelData.memory
                            Accessible.description: modelData.memory
                            onTriggered: {
                                // A click toggles the mark; the open model decides it.
                                checked = Qt.binding(() => modelData.path === bar.models.modelPath)
                                bar.models.open(modelData.path)
                            }
                            Accessible.name: text
                        }
                        onObjectAdded: (index, object) => modelMenu.insertItem(5 + index, object)
                        onObjectRemoved: (index, object) => modelMenu.removeItem(object)
                    }
                    MenuSeparator {}
                    MenuItem {
                        text: qsTr("Recent")
                        enabled: false
                    }
                    Instantiator {
                        model: bar.models.recentModels
                        // The file or folder name; where it is, on hovering.
                        delegate: MenuItem {
                            required property string modelData
                            objectName: "recentEntry"
                            text: bar.models.displayName(modelData)
                            ToolTip.visible: hovered
                            ToolTip.text: modelData
                            Accessible.description: modelData
                            onTriggered: bar.models.open(modelData)
                        }
                        onObjectAdded: (index, object) => modelMenu.addItem(object)
                        onObjectRemoved: (index, object) => modelMenu.removeItem(object)
                    }
                }
            }

            ToolButton {
                text: qsTr("Settings")
                onClicked: bar.openSettings()
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: qsTr("Open the settings (Ctrl+,)")
            }
            ToolButton {
                text: "?"
                onClicked: bar.openShortcuts()
                Accessible.name: qsTr("Keyboard shortcuts")
                Accessible.description: qsTr("List the keyboard shortcuts (F1)")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Keyboard shortcuts (F1)")
            }
            ToolButton {
                text: qsTr("Cache panel")
                checkable: true
                checked: bar.panelShown
                onClicked: bar.togglePanel()
                Accessible.name: text  // starts with what is shown, for voice control
                Accessible.description: qsTr("Show or hide the cache panel")
            }
        }

        Rectangle {
            visible: bar.models.error !== ""
            color: Qt.rgba(0.85, 0.2, 0.2, 0.18)
            // Screen readers announce an alert; a plain rectangle would stay silent.
            Accessible.role: Accessible.AlertMessage
            Accessible.name: bar.models.error
            Layout.fillWidth: true
            Layout.preferredHeight: errorRow.implicitHeight + 8

            RowLayout {
                id: errorRow
                anchors.fill: parent
                anchors.margins: 4
                Label {
                    textFormat: Text.PlainText
                    text: bar.models.error
                    wrapMode: Text.Wrap
                    color: pal.windowText
                    Layout.fillWidth: true
                }
                Button {
                    text: qsTr("Dismiss")
                    onClicked: bar.models.clearError()
                    Accessible.name: qsTr("Dismiss the model error")
                }
            }
        }
    }

    FileDialog {
        id: fileDialog
        objectName: "modelFileDialog"
        title: qsTr("Open a GGUF model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: bar.models.open(selectedFile)
    }
    FolderDialog {
        id: folderDialog
        objectName: "modelFolderDialog"
        title: qsTr("Open a Hugging Face model folder")
        onAccepted: bar.models.open(selectedFolder)
    }
}
