// The conversation on screen: its messages (the last one streaming while a reply runs),
// errors from the engine, and the composer. With no model open (the packages ship none) an
// empty conversation shows a welcome that says so and where to get one: a file, the models
// folder, or a download from the catalogue there (model_catalogue.h).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: view

    required property var conversations
    required property var messages
    required property var chat
    required property var clipboard
    required property var models
    required property var catalogue

    signal openModelFile()  // the model bar's file dialog (Ctrl+O)

    padding: 0

    // Esc in Main.qml: drops an edit in progress as the Cancel edit button does.
    function cancelEdit() {
        composer.cancelEdit()
    }

    SystemPalette { id: pal }

    background: Rectangle { color: pal.base }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        Label {
            textFormat: Text.PlainText
            text: view.conversations.currentTitle
            font.pointSize: Qt.application.font.pointSize * 1.2  // follows the system font size
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
            onCountChanged: if (following) Qt.callLater(followEnd)
            onContentHeightChanged: if (following) Qt.callLater(followEnd)
            // Checks again when it runs: a key may have stopped the follow since it was queued.
            function followEnd() {
                if (following)
                    positionViewAtEnd()
            }

            // The keyboard's way to read back (keys from the composer): moving up stops
            // following the reply, as scrolling up by mouse does; reaching the end resumes it.
            function scrollByKey(key) {
                const top = originY - topMargin
                const bottom = Math.max(top, originY + contentHeight + bottomMargin - height)
                const page = Math.max(height - 40, 20)  // a little overlap keeps the reader's place
                const y = contentY + (key === Qt.Key_PageUp ? -page : page)
                if (key === Qt.Key_Home || (key === Qt.Key_PageUp && y <= top))
                    positionViewAtBeginning()
                else if (key === Qt.Key_End || (key === Qt.Key_PageDown && y >= bottom))
                    positionViewAtEnd()
                else
                    contentY = y
                following = key === Qt.Key_End || showsEnd()
            }
            // Whether the last message is on screen: atYEnd goes by the estimated height of the
            // messages not yet laid out, and can be wrong by a few pixels.
            function showsEnd() {
                const last = itemAtIndex(count - 1)
                return count === 0 || (last !== null && last.y + last.height <= contentY + height + 1)
            }

            delegate: MessageDelegate {
                width: messageList.width
                clipboard: view.clipboard
                chat: view.chat
            }

            ColumnLayout {
                objectName: "welcome"
                anchors.centerIn: parent
                width: parent.width * 0.7
                visible: messageList.count === 0 && !view.models.hasModel && !view.models.loading
                spacing: 10
                Label {
                    textFormat: Text.PlainText
                    text: qsTr("Welcome to PyramidChat")
                    font.pointSize: Qt.application.font.pointSize * 1.4  // follows the system font size
                    font.bold: true
                    horizontalAlignment: Text.AlignHCenter
                    Layout.fillWidth: true
                }
                Label {
                    textFormat: Text.PlainText
                    text: qsTr("No model is open: PyramidChat comes without one. Open a LLaMA-family chat model in GGUF "
                               + "format (such as SmolLM2-135M-Instruct or TinyLlama-1.1B-Chat), or put one in the models "
                               + "folder, where it is found at every start.")
                    wrapMode: Text.Wrap
                    horizontalAlignment: Text.AlignHCenter
                    Layout.fillWidth: true
                }
                // The catalogue's models, each a click from the models folder.
                Repeater {
                    model: view.catalogue.entries
                    delegate: RowLayout {
                        required property var modelData
                        required property int index
                        objectName: "catalogueEntry"
                        spacing: 8
                        Layout.fillWidth: true
                        Label {
                            textFormat: Text.PlainText
                            text: modelData.size !== "" ? qsTr("%1 (%2)").arg(modelData.name).arg(modelData.size) : modelData.name
                            font.bold: true
                        }
                        Label {
                            textFormat: Text.PlainText
                            text: modelData.about
                            elide: Text.ElideRight
                            opacity: 0.8
                            Layout.fillWidth: true
                        }
                        // No digest to check the file against: said, and still offered.
                        Label {
                            objectName: "catalogueUnverified"
                            visible: !modelData.verified
                            textFormat: Text.PlainText
                            text: qsTr("not verified")
                            font.italic: true
                            opacity: 0.8
                            ToolTip.visible: unverifiedHover.hovered
                            ToolTip.text: unverifiedNote
                            readonly property string unverifiedNote:
                                qsTr("No SHA-256 is known for this file, so the download cannot be checked: it is kept as it arrives.")
                            HoverHandler { id: unverifiedHover }
                            Accessible.name: text
                            Accessible.description: unverifiedNote
                        }
                        Button {
                            objectName: "catalogueDownload"
                            text: modelData.present ? qsTr("Downloaded") : qsTr("Download")
                            enabled: !modelData.present && !view.catalogue.downloading
                            onClicked: view.catalogue.download(index)
                            Accessible.name: qsTr("Download %1").arg(modelData.name)
                            Accessible.description: modelData.url
                        }
                    }
                }
                RowLayout {
                    objectName: "catalogueProgress"
                    visible: view.catalogue.downloading
                    spacing: 8
                    Layout.fillWidth: true
                    Label {
                        textFormat: Text.PlainText
                        text: qsTr("Downloading %1…").arg(view.catalogue.downloadingName)
                    }
                    ProgressBar {
                        indeterminate: view.catalogue.progress < 0
                        value: Math.max(0, view.catalogue.progress)
                        Layout.fillWidth: true
                        Accessible.name: qsTr("Download progress")
                    }
                    Button {
                        text: qsTr("Cancel")
                        onClicked: view.catalogue.cancel()
                        Accessible.name: qsTr("Cancel the download")
                    }
                }
                Label {
                    objectName: "catalogueError"
                    textFormat: Text.PlainText
                    visible: text !== ""
                    text: view.catalogue.error !== "" ? view.catalogue.error : view.catalogue.problem
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                    Accessible.role: Accessible.AlertMessage
                    Accessible.name: text
                }
                RowLayout {
                    spacing: 8
                    Layout.alignment: Qt.AlignHCenter
                    Button {
                        objectName: "welcomeOpenModel"
                        text: qsTr("Open model file…")
                        highlighted: true
                        onClicked: view.openModelFile()
                    }
                    Button {
                        objectName: "welcomeModelsFolder"
                        text: qsTr("Show the models folder")
                        onClicked: Qt.openUrlExternally(view.models.modelsFolder())
                    }
                }
            }
            Label {
                textFormat: Text.PlainText
                anchors.centerIn: parent
                width: parent.width * 0.7
                visible: messageList.count === 0 && (view.models.hasModel || view.models.loading)
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                opacity: 0.7
                text: qsTr("Type a message below to start. Enter sends, Shift+Enter starts a new line, Esc stops a reply.")
            }
        }

        Rectangle {
            visible: view.chat.error !== ""
            color: Qt.rgba(0.85, 0.2, 0.2, 0.18)
            // Screen readers announce an alert; a plain rectangle would stay silent.
            Accessible.role: Accessible.AlertMessage
            Accessible.name: view.chat.error
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
            onHistoryKey: key => messageList.scrollByKey(key)
            Layout.fillWidth: true
            Component.onCompleted: {
                showDraft()
                focusInput()
            }
        }
        Connections {
            target: view.chat
            function onConversationShown() {
                composer.showDraft()
                composer.focusInput()
            }
        }
    }
}
