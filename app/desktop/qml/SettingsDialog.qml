// The settings: this conversation's system prompt, then every generation and compression
// knob as a field with its error beside it. Valid changes apply to the next reply.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Dialog {
    id: dialog

    required property var settings
    property var server: null  // shows its address under the server switch (desktop_server.h)

    title: qsTr("Settings")
    modal: true
    standardButtons: Dialog.Close
    parent: Overlay.overlay
    onAboutToShow: preset.showActive()  // a preset picked but not applied is not kept

    SystemPalette { id: pal }

    readonly property color errorColor: pal.window.hslLightness < 0.5 ? "#ff8a80" : "#c62828"
    readonly property int fieldWidth: 180  // one column of inputs, wide enough for the choice labels

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            textFormat: Text.PlainText
            text: qsTr("System prompt for this conversation")
            font.bold: true
        }
        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: 64
            background: Rectangle {
                color: pal.base
                radius: 3
                border.color: systemPrompt.activeFocus ? pal.highlight : Qt.rgba(pal.text.r, pal.text.g, pal.text.b, 0.3)
            }
            TextArea {
                id: systemPrompt
                text: dialog.settings.systemPrompt
                placeholderText: qsTr("None: the model gets no system prompt")
                wrapMode: TextEdit.Wrap
                selectByMouse: true
                onEditingFinished: dialog.settings.systemPrompt = text
                // Tab moves on instead of typing a tab, so the keyboard can leave the field.
                Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                Accessible.name: qsTr("System prompt for this conversation")
            }
        }

        RowLayout {
            spacing: 6
            Layout.fillWidth: true
            Label { textFormat: Text.PlainText; text: qsTr("Compression preset") }
            ComboBox {
                id: preset
                objectName: "presetChoice"
                model: dialog.settings.presetLabels
                implicitContentWidthPolicy: ComboBox.WidestText  // "Erinnerung (Standard)" whole
                // The preset the box shows: presetNames and presetLabels are in the same order.
                readonly property string chosen: currentIndex >= 0 ? dialog.settings.presetNames[currentIndex] : ""
                // The preset in effect until another is picked, "Custom" when a knob was set by
                // hand; back to the one in effect whenever that changes.
                function showActive() {
                    currentIndex = dialog.settings.presetNames.indexOf(dialog.settings.activePreset)
                }
                Component.onCompleted: showActive()
                Connections {
                    target: dialog.settings
                    function onActivePresetChanged() { preset.showActive() }
                }
                displayText: currentIndex < 0 ? qsTr("Custom") : currentText
                Accessible.name: qsTr("Compression preset")
            }
            Button {
                objectName: "presetApply"
                text: qsTr("Apply")
                enabled: preset.currentIndex >= 0 && preset.chosen !== dialog.settings.activePreset
                onClicked: dialog.settings.applyPreset(preset.chosen)
                Accessible.name: qsTr("Apply the compression preset")
            }
            Item { Layout.fillWidth: true }
            Button {
                objectName: "resetAllButton"
                text: qsTr("Reset all")
                onClicked: resetDialog.open()  // asks first: it takes back every change
                Accessible.name: qsTr("Reset all settings to their defaults")
            }
        }
        Label {
            objectName: "presetSummary"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            opacity: 0.7
            text: dialog.settings.presetSummary(preset.chosen)
            visible: text.length > 0
        }

        Label {
            textFormat: Text.PlainText
            text: dialog.settings.hasErrors ? qsTr("Fields marked in red are not applied; replies use their last valid value.")
                                            : qsTr("Changes apply to the next reply; the language, the device, the CPU threads and the cache precision when the app starts again.")
            color: dialog.settings.hasErrors ? dialog.errorColor : pal.windowText
            opacity: dialog.settings.hasErrors ? 1 : 0.7
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "restartNote"
            textFormat: Text.PlainText
            visible: dialog.settings.restartNeeded
            text: qsTr("Restart PyramidChat to use the new language, device, CPU threads or cache precision.")
            font.bold: true
            wrapMode: Text.Wrap
            Layout.fillWidth: true
            Accessible.role: Accessible.AlertMessage
            Accessible.name: text
        }

        ListView {
            id: fields
            objectName: "settingsFields"
            model: dialog.settings
            clip: true
            spacing: 4
            Layout.fillWidth: true
            Layout.fillHeight: true
            // Drawn while the fields overflow, not only while they move: most settings (the
            // cache's precision, PyramidInfer's knobs, the server) are below the first screen.
            ScrollBar.vertical: ScrollBar {
                objectName: "settingsScrollBar"
                policy: size < 1.0 ? ScrollBar.AlwaysOn : ScrollBar.AsNeeded
            }
            Accessible.name: qsTr("Settings")
            // Every field exists (there are a few dozen), so Tab and Shift+Tab reach them all;
            // the one with focus scrolls into view.
            cacheBuffer: 100000

            section.property: "group"
            section.delegate: Label {
                required property string section
                textFormat: Text.PlainText
                text: section
                font.bold: true
                topPadding: 10
                bottomPadding: 2
            }

            delegate: ColumnLayout {
                id: field
                required property int index
                required property string key
                required property string label
                required property string help
                required property string kind
                required property string text
                required property string error
                required property var choices
                required property var choiceLabels
                required property int choiceIndex
                required property string groupNote
                required property bool active

                width: ListView.view.width - 12
                spacing: 1
                enabled: field.active

                // A screen reader hears the error when there is one, else what the field does.
                readonly property string accessibleText: field.error !== "" ? field.error : field.help
                function reveal(item) {
                    if (item.activeFocus)
                        fields.positionViewAtIndex(field.index, ListView.Contain)
                }

                Label {
                    objectName: "groupNote"
                    textFormat: Text.PlainText
                    visible: field.groupNote !== ""
                    text: field.groupNote
                    font.italic: true
                    wrapMode: Text.Wrap
                    bottomPadding: 4
                    Layout.fillWidth: true
                }
                RowLayout {
                    Layout.fillWidth: true
                    Label {
                        textFormat: Text.PlainText
                        text: field.label
                        Layout.fillWidth: true
                        ToolTip.visible: labelArea.containsMouse
                        ToolTip.text: field.help
                        MouseArea {
                            id: labelArea
                            anchors.fill: parent
                            hoverEnabled: true
                        }
                    }
                    TextField {
                        objectName: "field_" + field.key
                        visible: field.kind !== "choice"
                        text: field.text
                        selectByMouse: true
                        horizontalAlignment: TextInput.AlignRight
                        inputMethodHints: field.kind === "integer" ? Qt.ImhDigitsOnly : Qt.ImhFormattedNumbersOnly
                        onEditingFinished: dialog.settings.setValue(field.key, text)
                        onActiveFocusChanged: field.reveal(this)
                        Layout.preferredWidth: dialog.fieldWidth
                        Accessible.name: field.label
                        Accessible.description: field.accessibleText
                        // The field whose value is refused is marked in red, as the text above says.
                        Rectangle {
                            objectName: "errorFrame"
                            anchors.fill: parent
                            visible: field.error !== ""
                            color: "transparent"
                            radius: 2
                            border.width: 2
                            border.color: dialog.errorColor
                        }
                    }
                    ComboBox {
                        visible: field.kind === "choice"
                        model: field.choiceLabels
                        currentIndex: field.choiceIndex
                        onActivated: index => dialog.settings.setValue(field.key, field.choices[index])
                        implicitContentWidthPolicy: ComboBox.WidestText  // room for the longest label
                        Layout.preferredWidth: Math.max(dialog.fieldWidth, implicitWidth)
                        onActiveFocusChanged: field.reveal(this)
                        Accessible.name: field.label
                        Accessible.description: field.accessibleText
                    }
                }
                // Under the port: where other programs reach the model, selectable to copy.
                TextEdit {
                    objectName: "serverStatus"
                    visible: field.key === "serve_port" && dialog.server !== null && dialog.server.state !== "off"
                    text: dialog.server ? dialog.server.statusText : ""
                    readOnly: true
                    selectByMouse: true
                    textFormat: TextEdit.PlainText
                    wrapMode: TextEdit.Wrap
                    color: dialog.server && dialog.server.state === "failed" ? dialog.errorColor : pal.text
                    selectionColor: pal.highlight
                    selectedTextColor: pal.highlightedText
                    Layout.fillWidth: true
                    Accessible.role: Accessible.StaticText
                    Accessible.name: text
                }
                Label {
                    textFormat: Text.PlainText
                    visible: field.error !== ""
                    text: field.error
                    color: dialog.errorColor
                    wrapMode: Text.Wrap
                    font.pointSize: Qt.application.font.pointSize * 0.85  // follows the system font size
                    Layout.fillWidth: true
                }
            }
        }
    }

    Dialog {
        id: resetDialog
        objectName: "resetDialog"
        title: qsTr("Reset all settings?")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(dialog.width - 40, 480)  // a set width: the text wraps in it
        standardButtons: Dialog.Reset | Dialog.Cancel
        onReset: {
            dialog.settings.resetToDefaults()
            close()
        }
        contentItem: Label {
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
            text: qsTr("Every generation, multi-turn and cache setting goes back to its default, and the prompt format to automatic. The language, the theme, the device, the cache precision and the server stay as they are.")
        }
    }
}
