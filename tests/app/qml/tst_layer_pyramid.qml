// The live panel's layer bars (app/desktop/qml/LayerPyramid.qml): one bar per layer, and a
// label on every layer while the bars are tall enough for one, else on every few layers, never
// two labels on top of each other (30 layers in a short window, or in German, whose panel texts
// wrap, left none before).
import QtQuick
import QtQuick.Controls
import QtQuick.Window
import QtTest
import "../../../app/desktop/qml"

TestCase {
    id: tc
    name: "LayerPyramid"
    when: windowShown

    ListModel {
        id: stats
        property int fullLength: 1000
    }

    // A window of its own: a label's visibility is its window's too.
    Window {
        width: 400
        height: 900
        visible: true
        LayerPyramid {
            id: pyramid
            width: 300
            stats: stats
        }
    }

    // The layers at once, as CacheStatsModel resets itself for every update.
    function fill(layers) {
        const rows = []
        for (let i = 0; i < layers; ++i)
            rows.push({layerIndex: i, length: 1000 - 10 * i, fraction: 1 - 0.01 * i, compressed: i > 0})
        stats.clear()
        stats.append(rows)
    }
    function labels() {
        const bars = findChild(pyramid, "layerBars")
        const found = []
        const kids = bars.parent.children
        for (let i = 0; i < kids.length; ++i)
            for (let j = 0; j < kids[i].children.length; ++j) {
                const item = kids[i].children[j]
                if (item.text !== undefined && String(item.text).startsWith("L"))
                    found.push(item)
            }
        return found
    }
    function shown() { return labels().filter(l => l.visible) }

    function test_every_layer_labelled_when_bars_are_tall() {
        fill(30)
        pyramid.height = 30 * 14
        tryCompare(pyramid, "layerCount", 30)
        compare(pyramid.labelStep, 1)
        tryVerify(() => labels().length === 30, 3000, "a delegate per layer")
        compare(shown().length, 30)
    }

    function test_thin_bars_label_every_few_layers() {
        for (const [layers, height] of [[30, 300], [30, 200], [40, 240], [80, 320]]) {
            fill(layers)
            pyramid.height = height
            tryCompare(pyramid, "layerCount", layers)
            verify(pyramid.barHeight + 1 < 11, "thin bars: " + pyramid.barHeight)
            verify(pyramid.labelStep > 1, "step " + pyramid.labelStep)
            tryVerify(() => labels().length === layers, 3000, "a delegate per layer: " + labels().length + " of " + layers + " in " + height)
            const visible = shown()
            compare(visible.length, Math.ceil(layers / pyramid.labelStep), layers + " layers in " + height)
            // Sorted top to bottom, each label ends before the next begins.
            const ys = visible.map(l => l.mapToItem(pyramid, 0, 0).y).sort((a, b) => a - b)
            for (let i = 1; i < ys.length; ++i)
                verify(ys[i] - ys[i - 1] >= visible[0].font.pixelSize,
                       "labels overlap at " + ys[i - 1] + " and " + ys[i] + " (" + layers + " in " + height + ")")
        }
    }
}
