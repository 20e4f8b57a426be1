// Stand-ins for the C++ objects Main.qml takes (same property and method names), so the real
// QML can be driven by keys without an engine or a database.
import QtQuick

QtObject {
    property ListModel conversations: ListModel {
        property string currentTitle: "Chat A"
        property var currentId: 1
        property string searchText: ""
        property bool canUndoRemove: false
        property string undoText: ""
        property int created: 0
        property var renamed: []
        // The C++ model marks the current row; its delegates read the "current" role.
        onCurrentIdChanged: {
            for (let i = 0; i < count; ++i) {
                setProperty(i, "current", get(i).conversationId === currentId)
                if (get(i).conversationId === currentId)
                    currentTitle = get(i).title
            }
        }
        function createConversation() { created++ }
        function selectNeighbour(step) {  // as ConversationListModel::selectNeighbour
            for (let i = 0; i < count; ++i)
                if (get(i).conversationId === currentId) {
                    if (i + step >= 0 && i + step < count)
                        currentId = get(i + step).conversationId
                    return
                }
        }
        function rename(id, title) { renamed.push(title) }
        function remove(id) {}
        function undoRemove() {}
        function exportConversation(id, file, format) { return "" }
        function suggestedExportFile(id, format) { return "file:///tmp/Chat A.md" }
        function localPath(file) { return String(file).replace("file://", "") }
        function fileExists(file) { return false }
        function importConversation(file) { return "" }
        ListElement { conversationId: 1; title: "Chat A"; updated: "10:00"; current: true }
        ListElement { conversationId: 2; title: "Chat B"; updated: "09:00"; current: false }
        ListElement { conversationId: 3; title: "Chat C"; updated: "08:00"; current: false }
    }
    property ListModel messages: ListModel {}
    property ListModel settings: ListModel {
        property string systemPrompt: ""
        property var presetNames: ["pyramid", "full"]
        property var presetLabels: ["Pyramid (default)", "Full"]
        property string activePreset: "pyramid"
        property bool hasErrors: false
        property bool restartNeeded: false
        property int resets: 0
        function setValue(k, v) { return true }
        function applyPreset(name) {}
        function presetSummary(name) { return "" }
        function resetToDefaults() { resets++ }
    }
    property ListModel stats: ListModel {
        property bool hasStats: false
        property int fullLength: 0
        property string phaseText: "No reply yet"
        property string kvText: "–"
        property real savingFraction: 0
        property string savingText: "–"
        property real contextFill: 0
        property string contextText: "–"
        property string tokensText: "–"
        property string speedText: "–"
        property string ttftText: "–"
        property string memoryLabel: "Process memory"
        property string memoryText: "–"
        property bool showsDeviceMemory: false
        property real deviceMemoryFraction: 0
        property string deviceText: ""
        property var kvHistory: []
        function refreshMemory() {}
    }
    property QtObject chat: QtObject {
        property bool busy: false
        property bool busyElsewhere: false
        property string draft: ""
        property string contextWarning: ""
        property bool editing: false
        property bool canEditLast: true
        property bool canRegenerate: true
        property bool canSend: true
        property string error: ""
        property string lastUserText: "hello"
        property string editedText: lastUserText
        property int stops: 0
        property int cancels: 0
        signal conversationShown()
        function send(t) { draft = ""; return true }
        function stop() { stops++ }
        function clearError() { error = "" }
        function beginEdit(row) { editing = true; return true }
        function cancelEdit() { cancels++; editing = false }
        function regenerate() { return true }
        property var deleted: []
        function deleteMessage(row) { deleted.push(row); return true }
        property var pages: []
        function showVersion(row, step) { pages.push([row, step]); return true }
        function editAndResend(t) { editing = false; return true }
    }
    property QtObject models: QtObject {
        property bool loading: false
        property bool hasModel: true
        property string modelName: "stories"
        property string modelPath: ""
        property string modelSummary: "s"
        property string backend: "CPU"
        property string backendNote: ""
        property string loadingName: ""
        property real progress: 0
        property string error: ""
        property var availableModels: []
        property var modelFiles: []
        property var recentModels: []
        function rescan() {}
        function displayName(p) { return p }
        function modelsFolder() { return "file:///tmp/models" }
        function open(p) {}
        function cancel() {}
        function clearError() { error = "" }
    }
    property QtObject catalogue: QtObject {
        property var entries: []
        property string problem: ""
        property bool downloading: false
        property string downloadingName: ""
        property real progress: 0
        property string error: ""
        property var downloads: []
        function download(i) { downloads.push(i) }
        function cancel() {}
    }
    property QtObject clipboard: QtObject {
        property string copied: ""
        function copy(t) { copied = t }
    }
    property QtObject server: QtObject {
        property string state: "off"
        property string statusText: "Not serving"
        property string activityText: "Not serving"
    }
}
