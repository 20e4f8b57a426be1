// Live numbers for the reply that runs (or ran last): the per-layer pyramid, cache bytes
// against a full cache, context fill, speed, time to first token, memory (the GPU's when the
// model runs on one) and the device.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Pane {
    id: panel

    required property var stats
    required property var models
    property var server: null  // Settings -> Server (desktop_server.h); null: not shown

    SystemPalette { id: pal }

    // /proc/self/statm and the GPU's memory are cheap to read; once a second keeps the number
    // honest while idle (other programs take and free GPU memory too).
    Timer {
        interval: 1000
        running: panel.visible
        repeat: true
        onTriggered: panel.stats.refreshMemory()
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                textFormat: Text.PlainText
                text: qsTr("KV cache")
                font.bold: true
                font.pointSize: Qt.application.font.pointSize * 1.1  // follows the system font size
                Layout.fillWidth: true
            }
            Label {
                textFormat: Text.PlainText
                text: panel.stats.phaseText
                opacity: 0.7
            }
        }

        Label {
            textFormat: Text.PlainText
            text: panel.stats.hasStats ? qsTr("Entries per layer (bar) against a full cache of %1 (outline)")
                                             .arg(Number(panel.stats.fullLength).toLocaleString(Qt.locale(), 'f', 0))
                                       : ""
            visible: panel.stats.hasStats
            wrapMode: Text.Wrap
            font.pointSize: Qt.application.font.pointSize * 0.85  // follows the system font size
            opacity: 0.8
            Layout.fillWidth: true
        }

        // What the two shades of the bars mean.
        Flow {
            objectName: "pyramidLegend"
            visible: panel.stats.hasStats
            spacing: 12
            Layout.fillWidth: true
            Repeater {
                model: [
                    {shade: layers.keptColor, text: qsTr("entries kept")},
                    {shade: layers.droppedColor, text: qsTr("entries kept; some just dropped")},
                ]
                delegate: Row {
                    required property var modelData
                    spacing: 4
                    Rectangle {
                        objectName: "legendSwatch"
                        width: 12
                        height: 12
                        radius: 2
                        color: modelData.shade
                        anchors.verticalCenter: parent.verticalCenter
                    }
                    Label {
                        objectName: "legendText"
                        textFormat: Text.PlainText
                        text: modelData.text
                        font.pointSize: Qt.application.font.pointSize * 0.85  // follows the system font size
                    }
                }
            }
        }

        // The reply's KV memory over its tokens: what is kept against what a full cache would hold.
        Canvas {
            id: memoryChart
            objectName: "memoryChart"
            readonly property var points: panel.stats.kvHistory
            visible: points.length >= 2
            Layout.fillWidth: true
            Layout.preferredHeight: 64
            Accessible.role: Accessible.Chart
            Accessible.name: qsTr("KV memory during the reply: kept (filled) against a full cache (line)")
            onPointsChanged: requestPaint()
            onWidthChanged: requestPaint()
            onPaint: {
                const ctx = getContext("2d")
                ctx.reset()
                if (points.length < 2)
                    return
                const first = points[0].tokens, last = points[points.length - 1].tokens
                let top = 1
                for (const p of points)
                    top = Math.max(top, p.full, p.kv)
                const x = t => last > first ? (t - first) / (last - first) * (width - 2) + 1 : 1
                const y = b => height - 1 - b / top * (height - 2)
                ctx.fillStyle = layers.keptColor
                ctx.beginPath()
                ctx.moveTo(x(first), height - 1)
                for (const p of points)
                    ctx.lineTo(x(p.tokens), y(p.kv))
                ctx.lineTo(x(last), height - 1)
                ctx.closePath()
                ctx.fill()
                ctx.strokeStyle = pal.windowText
                ctx.lineWidth = 1.5
                ctx.beginPath()
                ctx.moveTo(x(first), y(points[0].full))
                for (const p of points)
                    ctx.lineTo(x(p.tokens), y(p.full))
                ctx.stroke()
            }
        }
        Label {
            visible: memoryChart.visible
            textFormat: Text.PlainText
            text: memoryChart.Accessible.name
            wrapMode: Text.Wrap
            font.pointSize: Qt.application.font.pointSize * 0.85  // follows the system font size
            Layout.fillWidth: true
        }

        LayerPyramid {
            id: layers
            stats: panel.stats
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.minimumHeight: 120
        }

        GridLayout {
            columns: 2
            columnSpacing: 10
            rowSpacing: 6
            Layout.fillWidth: true

            Label { textFormat: Text.PlainText; text: qsTr("KV memory"); opacity: 0.8 }
            Label {
                textFormat: Text.PlainText
                text: panel.stats.kvText
                font.bold: true
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            Label { textFormat: Text.PlainText; text: qsTr("Saved"); opacity: 0.8 }
            RowLayout {
                Layout.fillWidth: true
                ProgressBar {
                    value: panel.stats.savingFraction
                    Layout.fillWidth: true
                    Accessible.name: qsTr("KV cache saving")
                }
                Label { textFormat: Text.PlainText; text: panel.stats.savingText; font.bold: true }
            }

            Label { textFormat: Text.PlainText; text: qsTr("Context"); opacity: 0.8 }
            RowLayout {
                Layout.fillWidth: true
                ProgressBar {
                    value: panel.stats.contextFill
                    Layout.fillWidth: true
                    Accessible.name: qsTr("Context fill")
                }
                Label { textFormat: Text.PlainText; text: panel.stats.contextText }
            }

            Label { textFormat: Text.PlainText; text: qsTr("Tokens"); opacity: 0.8 }
            Label {
                textFormat: Text.PlainText
                text: panel.stats.tokensText
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            Label { textFormat: Text.PlainText; text: qsTr("Speed"); opacity: 0.8 }
            Label { textFormat: Text.PlainText; text: panel.stats.speedText; font.bold: true }

            Label { textFormat: Text.PlainText; text: qsTr("First token"); opacity: 0.8 }
            Label { textFormat: Text.PlainText; text: panel.stats.ttftText }

            Label { textFormat: Text.PlainText; text: panel.stats.memoryLabel; opacity: 0.8 }
            RowLayout {
                Layout.fillWidth: true
                ProgressBar {
                    visible: panel.stats.showsDeviceMemory
                    value: panel.stats.deviceMemoryFraction
                    Layout.fillWidth: true
                    Accessible.name: qsTr("GPU memory in use")
                }
                Label {
                    textFormat: Text.PlainText
                    text: panel.stats.memoryText
                    wrapMode: Text.Wrap
                    Layout.fillWidth: !panel.stats.showsDeviceMemory
                }
            }

            // Requests of other programs on the same model (Settings -> Server).
            Label {
                textFormat: Text.PlainText
                visible: serverActivity.visible
                text: qsTr("Server")
                opacity: 0.8
            }
            Label {
                id: serverActivity
                objectName: "serverActivity"
                textFormat: Text.PlainText
                visible: panel.server !== null && panel.server.state !== "off"
                text: panel.server ? panel.server.activityText : ""
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            Label { textFormat: Text.PlainText; text: qsTr("Device"); opacity: 0.8 }
            Label {
                textFormat: Text.PlainText
                // What the last reply ran on; before any, the backend the model was opened with.
                text: panel.stats.deviceText !== "" ? panel.stats.deviceText
                                                    : panel.models.hasModel ? panel.models.backend : qsTr("–")
                elide: Text.ElideRight
                Layout.fillWidth: true
                ToolTip.visible: backendArea.containsMouse && panel.models.backendNote !== ""
                ToolTip.text: panel.models.backendNote
                MouseArea {
                    id: backendArea
                    anchors.fill: parent
                    hoverEnabled: true
                }
            }
        }
    }
}
