// The KV entries each layer holds, as bars against the full cache's length: layer 0 at the
// bottom, the deepest layer on top, centred, so PyramidInfer's shrinking deeper layers draw
// a pyramid and a full cache draws a column.
import QtQuick
import QtQuick.Controls

Item {
    id: pyramid

    required property var stats

    SystemPalette { id: pal }

    readonly property int layerCount: bars.count
    readonly property int spacing: layerCount > 24 ? 1 : 3
    readonly property real barHeight: layerCount > 0
        ? Math.max(3, Math.min(34, (height - (layerCount - 1) * spacing) / layerCount)) : 0
    readonly property real labelWidth: 84
    // A label takes a row of 11 pixels (10-pixel text): bars thinner than that (many layers, or
    // a short window in a language whose panel texts wrap) label every labelStep-th layer.
    readonly property int labelStep: layerCount > 0 ? Math.max(1, Math.ceil(11 / (barHeight + spacing))) : 1
    // A layer's bar, and the lighter one of a layer that dropped entries on the last step (the
    // panel's legend shows both).
    readonly property color keptColor: pal.highlight
    readonly property color droppedColor: Qt.lighter(pal.highlight, 1.25)

    // An entry count as the user's locale writes numbers ("2,048", "2.048").
    function count(n) {
        return Number(n).toLocaleString(Qt.locale(), 'f', 0)
    }

    // As tall as the bars need, centred in the space the panel gives. A Repeater, not a ListView:
    // a ListView's count settles while it lays out, and the height that depends on it looped
    // whenever a model with another number of layers was opened.
    Item {
        id: barArea
        width: parent.width
        height: Math.min(parent.height, pyramid.layerCount * (pyramid.barHeight + pyramid.spacing) - pyramid.spacing)
        anchors.verticalCenter: parent.verticalCenter
        Accessible.name: qsTr("KV cache length per layer")

        Repeater {
            id: bars
            objectName: "layerBars"
            model: pyramid.stats

            delegate: Item {
                id: bar
                required property int layerIndex
                required property int length
                required property real fraction
                required property bool compressed

                // Layer 0 at the bottom. Edges on whole pixels, so that every gap between two bars
                // is `spacing` pixels (fractional ones drew some gaps a pixel wider, lines across
                // the pyramid) and bars differ by a pixel at most.
                readonly property real lowEdge: barArea.height - layerIndex * (pyramid.barHeight + pyramid.spacing)
                y: Math.round(lowEdge - pyramid.barHeight)
                width: barArea.width
                height: Math.round(lowEdge) - y
                Accessible.name: qsTr("Layer %1: %2 of %3 entries").arg(layerIndex).arg(pyramid.count(length))
                                                                    .arg(pyramid.count(pyramid.stats.fullLength))

                Label {
                    id: label
                    textFormat: Text.PlainText
                    width: pyramid.labelWidth
                    anchors.verticalCenter: parent.verticalCenter
                    visible: bar.layerIndex % pyramid.labelStep === 0
                    text: qsTr("L%1  %2").arg(bar.layerIndex).arg(pyramid.count(bar.length))
                    font.pixelSize: Math.max(10, Math.min(12, pyramid.barHeight))
                    font.family: "monospace"
                }

                // The full cache's length: the same for every layer.
                Rectangle {
                    id: track
                    x: pyramid.labelWidth
                    width: parent.width - pyramid.labelWidth
                    height: parent.height
                    radius: 2
                    color: "transparent"
                    border.color: Qt.rgba(pal.text.r, pal.text.g, pal.text.b, 0.3)
                }
                Rectangle {
                    width: track.width * bar.fraction
                    height: parent.height
                    x: track.x + (track.width - width) / 2
                    radius: 2
                    color: bar.compressed ? pyramid.droppedColor : pyramid.keptColor
                    Behavior on width { NumberAnimation { duration: 120 } }
                }
            }
        }
    }

    Label {
        textFormat: Text.PlainText
        anchors.centerIn: parent
        width: parent.width
        visible: pyramid.layerCount === 0
        text: qsTr("Send a message to see how much of each layer's cache is kept.")
        wrapMode: Text.Wrap
        horizontalAlignment: Text.AlignHCenter
        opacity: 0.7
    }
}
