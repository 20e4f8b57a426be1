// The main window: conversations on the left, the chat in the middle, the live cache panel
// on the right. All state lives in the C++ objects handed in as required properties.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ApplicationWindow {
    id: window

    required property var conversations
    required property var messages
    required property var settings
    required property var stats
    required property var chat
    required property var models
    required property var catalogue
    required property var clipboard
    required property var server

    // Narrow windows (800x600) start without the sidebar; the toolbar brings it back.
    readonly property bool compact: width < 1100
    property bool sidebarShown: !compact
    property bool panelShown: true

    width: 1280
    height: 800
    minimumWidth: 800
    minimumHeight: 600
    visible: true
    title: qsTr("%1 — PyramidChat").arg(conversations.currentTitle)

    onCompactChanged: sidebarShown = !compact

    header: ModelBar {
        id: modelBar
        models: window.models
        sidebarShown: window.sidebarShown
        panelShown: window.panelShown
        onToggleSidebar: window.sidebarShown = !window.sidebarShown
        onTogglePanel: window.panelShown = !window.panelShown
        onOpenSettings: settingsDialog.open()
        onOpenShortcuts: shortcutsDialog.open()
    }

    Shortcut {
        sequence: "Ctrl+N"
        onActivated: window.conversations.createConversation()
    }
    Shortcut {
        sequence: "Esc"
        enabled: window.chat.busy
        onActivated: window.chat.stop()
    }
    Shortcut {
        sequence: "Ctrl+,"
        onActivated: settingsDialog.open()
    }
    Shortcut {
        sequence: StandardKey.Find
        onActivated: {
            window.sidebarShown = true
            sidebar.focusSearch()
        }
    }
    Shortcut {
        sequence: StandardKey.HelpContents  // F1
        onActivated: shortcutsDialog.open()
    }
    // Like the others, these stay quiet while a dialog or menu is open: Shortcut skips a
    // window whose top popup is modal or closes on Esc.
    Shortcut {
        sequence: StandardKey.Open
        enabled: !window.models.loading  // as the Model menu, which is disabled meanwhile
        onActivated: modelBar.openModelFile()
    }
    Shortcut {
        id: quitShortcut
        // Closing the window is how the app quits: a running reply is then stored as stopped.
        sequence: StandardKey.Quit
        onActivated: window.close()
    }
    Shortcut {
        // Some platform themes (a bare X11 session) bind no key to Quit: Ctrl+Q as elsewhere.
        sequence: "Ctrl+Q"
        enabled: quitShortcut.nativeText === ""
        onActivated: window.close()
    }
    Shortcut {
        sequence: "Ctrl+PgDown"
        onActivated: window.conversations.selectNeighbour(1)
    }
    Shortcut {
        sequence: "Ctrl+PgUp"
        onActivated: window.conversations.selectNeighbour(-1)
    }
    Shortcut {
        // Esc stops a reply while one runs (above); with none it drops an edit in progress.
        sequence: "Esc"
        enabled: window.chat.editing && !window.chat.busy
        onActivated: chatView.cancelEdit()
    }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        ConversationSidebar {
            id: sidebar
            objectName: "sidebar"
            visible: window.sidebarShown
            conversations: window.conversations
            Layout.preferredWidth: window.compact ? 210 : 250
            Layout.fillHeight: true
        }
        ChatView {
            id: chatView
            objectName: "chatView"
            conversations: window.conversations
            messages: window.messages
            chat: window.chat
            clipboard: window.clipboard
            models: window.models
            catalogue: window.catalogue
            onOpenModelFile: modelBar.openModelFile()
            Layout.fillWidth: true
            Layout.fillHeight: true
        }
        LivePanel {
            visible: window.panelShown
            stats: window.stats
            models: window.models
            server: window.server
            Layout.preferredWidth: window.compact ? 250 : 310
            Layout.fillHeight: true
        }
    }

    ShortcutsDialog {
        id: shortcutsDialog
        objectName: "shortcutsDialog"
        anchors.centerIn: parent
        width: Math.min(window.width - 60, 560)
    }

    SettingsDialog {
        id: settingsDialog
        objectName: "settingsDialog"
        settings: window.settings
        server: window.server
        anchors.centerIn: parent
        width: Math.min(window.width - 60, 680)
        height: window.height - 60
    }
}
