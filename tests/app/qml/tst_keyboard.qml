// The desktop app's real QML (app/desktop/qml) on stand-in models, driven by key presses:
// Tab leaves text boxes, the history scrolls from the composer, conversations are reachable
// and selectable by keyboard, shortcuts work but not under a dialog, alerts reach screen
// readers. Run offscreen in the Fusion style, as the app uses (see CMakeLists.txt).
import QtQuick
import QtQuick.Controls
import QtTest

TestCase {
    id: tc
    name: "Keyboard"
    when: windowShown

    property var fakes
    property var win

    SystemPalette { id: pal }

    function findAll(item, pred, out) {
        if (!item)
            return out
        if (pred(item))
            out.push(item)
        const kids = item.children || []
        for (let i = 0; i < kids.length; ++i)
            findAll(kids[i], pred, out)
        return out
    }
    // Popups live in the overlay, beside the window's content item.
    function all(pred) { return findAll(win.contentItem.parent, pred, []) }
    function one(pred, what) {
        const found = all(pred)
        verify(found.length > 0, "not found: " + what)
        return found[0]
    }
    function named(name) {
        return one(i => i.visible && i.Accessible && i.Accessible.name === name, name)
    }
    function typeName(item) { return String(item).split("(")[0] }
    function input() { return one(i => i.objectName === "composerInput", "composerInput") }
    function messageList() { return named("Messages") }
    function settingsDialog() {
        const d = win.contentData
        for (let i = 0; i < d.length; ++i)
            if (d[i] && d[i].title === "Settings")
                return d[i]
        return null
    }
    function openSettings() {
        keyClick(Qt.Key_Comma, Qt.ControlModifier)
        tryVerify(() => settingsDialog().opened, 3000)
    }
    // Closes what a test (a failed one too) left open: each popup closes on Esc.
    function closePopups() {
        const overlay = win.contentItem.Overlay.overlay
        for (let i = 0; i < 6; ++i) {
            const open = []
            for (let j = 0; j < overlay.children.length; ++j)
                if (overlay.children[j].visible && String(overlay.children[j]).indexOf("ToolTip") < 0)
                    open.push(overlay.children[j])
            if (open.length === 0)
                break
            open[open.length - 1].forceActiveFocus()
            keyClick(Qt.Key_Escape)
            wait(50)
        }
        input().forceActiveFocus()
    }
    // A prose segment with every role MessageDelegate requires (SegmentListModel's roles).
    function prose(text) {
        return {code: false, quote: false, text: text, language: "", html: text, codeLight: "", codeDark: ""}
    }
    function addMessages(n) {
        for (let i = 0; i < n; ++i)
            fakes.messages.append({role: i % 2 ? "assistant" : "user", text: "Message number " + i + " with some text",
                                   segments: [prose("Message number " + i)],
                                   streaming: false, stopped: false, finishNote: "", statsText: i % 2 ? "5 tokens" : "",
                                   notice: "", versionCount: 1, versionIndex: 0})
    }
    // Whether a message is all on screen (atYEnd and atYBeginning go by estimated heights).
    function shows(list, row) {
        const item = list.itemAtIndex(row)
        return item !== null && item.y >= list.contentY - 1 && item.y + item.height <= list.contentY + list.height + 1
    }
    function luminance(c) {
        const lin = v => v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4)
        return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b)
    }

    function initTestCase() {
        fakes = Qt.createComponent("Fakes.qml").createObject(tc)
        const c = Qt.createComponent(Qt.resolvedUrl("../../../app/desktop/qml/Main.qml"))
        verify(c.status === Component.Ready, c.errorString())
        win = c.createObject(null, {conversations: fakes.conversations, messages: fakes.messages,
                                    settings: fakes.settings, stats: fakes.stats, chat: fakes.chat,
                                    models: fakes.models, catalogue: fakes.catalogue, clipboard: fakes.clipboard,
                                    server: fakes.server})
        verify(win)
        win.requestActivate()
        tryVerify(() => win.active, 3000)
        tryVerify(() => input().activeFocus, 3000)
    }
    function modelFileDialog() {
        const data = win.header.contentData
        for (let i = 0; i < data.length; ++i)
            if (data[i] && data[i].objectName === "modelFileDialog")
                return data[i]
        return null
    }
    // Each test starts from the same state, whatever the one before left (a failure included).
    function cleanup() {
        fakes.models.hasModel = true
        fakes.stats.hasStats = false
        fakes.chat.busy = false
        fakes.chat.editing = false
        fakes.chat.error = ""
        fakes.models.loading = false
        fakes.models.error = ""
        fakes.conversations.canUndoRemove = false
        fakes.conversations.currentId = 1
        fakes.messages.clear()
        if (modelFileDialog().visible)
            modelFileDialog().reject()
        closePopups()
        input().clear()
    }

    // Fix 1: Tab and Shift+Tab move on from the message box instead of typing a tab.
    function test_01_tabLeavesComposer() {
        input().forceActiveFocus()
        keyClick(Qt.Key_H)
        keyClick(Qt.Key_Tab)
        compare(input().text, "h")
        verify(!input().activeFocus, "Tab stayed in the message box")
        input().forceActiveFocus()
        keyClick(Qt.Key_Backtab, Qt.ShiftModifier)
        compare(input().text, "h")
        verify(!input().activeFocus, "Shift+Tab stayed in the message box")
        input().clear()
    }

    // Fix 1: the same in the settings' system prompt.
    function test_02_tabLeavesSystemPrompt() {
        openSettings()
        const prompt = one(i => i.visible && typeName(i).indexOf("TextArea") === 0
                                && i.Accessible.name === "System prompt for this conversation", "system prompt")
        prompt.forceActiveFocus()
        keyClick(Qt.Key_Tab)
        compare(prompt.text, "")
        verify(!prompt.activeFocus, "Tab stayed in the system prompt")
        prompt.forceActiveFocus()
        keyClick(Qt.Key_Backtab, Qt.ShiftModifier)
        compare(prompt.text, "")
        verify(!prompt.activeFocus, "Shift+Tab stayed in the system prompt")
    }

    // Fix 2: PageUp/PageDown and Ctrl+Home/Ctrl+End in the composer scroll the history; going
    // up stops following new text, the end resumes it.
    function test_03_pageKeysScrollHistory() {
        addMessages(30)
        const list = messageList()
        tryVerify(() => list.contentHeight > 2 * list.height && shows(list, list.count - 1), 3000)
        input().forceActiveFocus()
        const end = list.contentY
        keyClick(Qt.Key_PageUp)
        verify(list.contentY < end - list.height / 2, "PageUp did not scroll up: " + list.contentY + " / " + end)
        verify(!list.following, "PageUp left auto-follow on")
        verify(input().activeFocus)
        const readAt = list.contentY
        addMessages(1)
        wait(100)
        compare(list.contentY, readAt)  // a new message does not pull the reader down
        keyClick(Qt.Key_PageDown)
        verify(list.contentY > readAt, "PageDown did not scroll down")
        keyClick(Qt.Key_Home, Qt.ControlModifier)
        tryVerify(() => shows(list, 0), 1000)
        verify(!list.following)
        keyClick(Qt.Key_End, Qt.ControlModifier)
        tryVerify(() => shows(list, list.count - 1), 1000)
        verify(list.following, "Ctrl+End did not resume auto-follow")
        keyClick(Qt.Key_PageUp)
        keyClick(Qt.Key_PageDown)
        tryVerify(() => shows(list, list.count - 1), 1000)
        verify(list.following, "PageDown to the end did not resume auto-follow")
    }

    // Fix 2: Copy buttons say which message they copy, and one reached by Tab scrolls into view.
    function test_04_copyButtonsNamedAndShown() {
        addMessages(30)
        const list = messageList()
        tryVerify(() => list.contentHeight > 2 * list.height && shows(list, list.count - 1), 3000)
        const copies = all(i => i.visible && typeName(i).indexOf("ToolButton") === 0 && i.text === "Copy")
        verify(copies.length > 0)
        for (const b of copies) {
            verify(b.Accessible.name.indexOf("Copy") === 0, b.Accessible.name)
            verify(/(You|Assistant).*Message number \d+/.test(b.Accessible.name), b.Accessible.name)
        }
        input().forceActiveFocus()
        keyClick(Qt.Key_Home, Qt.ControlModifier)
        tryVerify(() => shows(list, 0), 1000)
        // Backwards from the input: Regenerate, Edit last, then the last message the list has
        // built: Delete, Edit (a user's), Copy. How far the list has built depends on timing:
        // when it ends on a user's message, Copy is the fifth step.
        let f = null
        for (let i = 0; i < 8; ++i) {
            keyClick(Qt.Key_Backtab, Qt.ShiftModifier)
            f = win.activeFocusItem
            if (f.text === "Copy")
                break
        }
        compare(f.text, "Copy")
        let p = f.mapToItem(list, 0, 0)
        verify(p.y >= 0 && p.y + f.height <= list.height, "focused Copy button off screen at y=" + p.y)
        // One cut off at the top edge comes fully into view when it takes focus.
        input().forceActiveFocus()
        list.contentY += f.mapToItem(list, 0, 0).y + f.height / 2
        verify(f.mapToItem(list, 0, 0).y < 0)
        f.forceActiveFocus(Qt.BacktabFocusReason)
        p = f.mapToItem(list, 0, 0)
        verify(p.y >= 0 && p.y + f.height <= list.height, "focused Copy button off screen at y=" + p.y)
        verify(!list.following)
    }

    // Fix 3: a conversation row is a Tab stop with a visible focus mark; Enter selects it.
    function test_05_conversationRowsByKeyboard() {
        const search = named("Search conversations")
        search.forceActiveFocus(Qt.TabFocusReason)
        keyClick(Qt.Key_Tab)
        let f = win.activeFocusItem
        compare(f.Accessible.name, "Chat A")
        verify(f.visualFocus)
        verify(findAll(f, i => i !== f && i.visible && i.border !== undefined && i.border.width >= 2, []).length > 0,
               "no focus mark on the row")
        keyClick(Qt.Key_Tab)
        compare(win.activeFocusItem.Accessible.name, "Actions for Chat A")
        keyClick(Qt.Key_Tab)
        compare(win.activeFocusItem.Accessible.name, "Chat B")
        keyClick(Qt.Key_Return)
        compare(fakes.conversations.currentId, 2)
        named("Chat C").forceActiveFocus(Qt.TabFocusReason)
        keyClick(Qt.Key_Space)
        compare(fakes.conversations.currentId, 3)
        fakes.conversations.currentId = 1
    }

    // Fix 3: the row menu opens under its button, not at the mouse pointer.
    function test_06_rowMenuAtButton() {
        const button = named("Actions for Chat B")
        button.forceActiveFocus(Qt.TabFocusReason)
        keyClick(Qt.Key_Space)
        const item = one(i => i.visible && i.text === "Rename…", "menu")
        tryVerify(() => item.mapToItem(null, 0, 0).y > 0, 1000)
        const b = button.mapToItem(null, 0, 0)
        const m = item.mapToItem(null, 0, 0)
        verify(m.y >= b.y + button.height - 2 && m.y <= b.y + button.height + 40,
               "menu at y=" + m.y + ", button bottom at " + (b.y + button.height))
        verify(Math.abs(m.x - b.x) < 40, "menu at x=" + m.x + ", button at " + b.x)
        keyClick(Qt.Key_Escape)
    }

    // Fix 4: Rename opens with its field focused and the old title selected.
    function test_07_renameFieldFocused() {
        named("Actions for Chat A").forceActiveFocus(Qt.TabFocusReason)
        keyClick(Qt.Key_Space)
        tryVerify(() => all(i => i.visible && i.text === "Rename…").length > 0, 1000)
        keyClick(Qt.Key_Down)
        keyClick(Qt.Key_Return)
        const field = one(i => i.Accessible && i.Accessible.name === "New title", "rename field")
        tryVerify(() => field.activeFocus, 1000)
        compare(field.selectedText, "Chat A")
        keyClick(Qt.Key_Z)
        compare(field.text, "z")
        keyClick(Qt.Key_Escape)
    }

    // Fix 5: every setting is reachable, the focused one is on screen, and its description is
    // its error when it has one.
    function test_08_settingsFieldsInView() {
        for (let i = 0; i < 40; ++i)
            fakes.settings.append({key: "k" + i, group: i < 9 ? "Generation" : "Cache", label: "Field " + i,
                                   help: "help " + i, kind: i % 7 === 0 ? "choice" : "real", text: "0.5",
                                   error: i === 3 ? "Enter a number." : "", choices: ["a", "b"],
                                   choiceLabels: ["A", "B"], choiceIndex: 0, groupNote: "", active: true})
        openSettings()
        const list = one(i => i.objectName === "settingsFields", "settings list")
        tryVerify(() => list.contentHeight > 0, 1000)  // laid out on the first frame
        one(i => i.visible && typeName(i).indexOf("Button") === 0 && i.text === "Close", "Close")
            .forceActiveFocus(Qt.TabFocusReason)
        keyClick(Qt.Key_Backtab, Qt.ShiftModifier)
        compare(win.activeFocusItem.Accessible.name, "Field 39")  // the last field exists and is reached
        named("Reset all settings to their defaults").forceActiveFocus(Qt.TabFocusReason)
        for (let i = 0; i < 40; ++i) {
            keyClick(Qt.Key_Tab)
            const f = win.activeFocusItem
            compare(f.Accessible.name, "Field " + i)
            const p = f.mapToItem(list, 0, 0)
            verify(p.y >= 0 && p.y + f.height <= list.height, f.Accessible.name + " off screen at y=" + p.y)
            compare(f.Accessible.description, i === 3 ? "Enter a number." : "help " + i)
        }
        keyClick(Qt.Key_Escape)  // the fields stay: the real model never drops its rows
    }

    // Fix 6: error and undo banners are alerts named by their text.
    function test_09_bannersAreAlerts() {
        const alerts = () => all(i => i.visible && i.Accessible && i.Accessible.role === Accessible.AlertMessage)
                                 .map(i => i.Accessible.name)
        fakes.chat.error = "The engine failed."
        fakes.models.error = "Not a GGUF file."
        fakes.conversations.undoText = "Deleted “Chat B”"
        fakes.conversations.canUndoRemove = true
        wait(50)
        const names = alerts()
        verify(names.indexOf("The engine failed.") >= 0, JSON.stringify(names))
        verify(names.indexOf("Not a GGUF file.") >= 0, JSON.stringify(names))
        verify(names.indexOf("Deleted “Chat B”") >= 0, JSON.stringify(names))
        fakes.chat.error = ""
        fakes.models.error = ""
        fakes.conversations.canUndoRemove = false
    }

    // Fix 7: Esc drops an edit in progress (while a reply runs it still stops the reply).
    function test_10_escCancelsEdit() {
        verify(fakes.chat.beginEdit())
        input().text = "changed"
        input().forceActiveFocus()
        keyClick(Qt.Key_Escape)
        verify(!fakes.chat.editing, "Esc left the edit on")
        compare(input().text, "")
        fakes.chat.editing = true
        fakes.chat.busy = true
        const stops = fakes.chat.stops
        keyClick(Qt.Key_Escape)
        compare(fakes.chat.stops, stops + 1)
        verify(fakes.chat.editing)
    }

    // Fix 7: Ctrl+PgDown/Ctrl+PgUp step through the conversations.
    function test_11_nextPreviousConversation() {
        fakes.conversations.currentId = 1
        input().forceActiveFocus()
        keyClick(Qt.Key_PageDown, Qt.ControlModifier)
        compare(fakes.conversations.currentId, 2)
        keyClick(Qt.Key_PageDown, Qt.ControlModifier)
        compare(fakes.conversations.currentId, 3)
        keyClick(Qt.Key_PageDown, Qt.ControlModifier)
        compare(fakes.conversations.currentId, 3)
        keyClick(Qt.Key_PageUp, Qt.ControlModifier)
        compare(fakes.conversations.currentId, 2)
        fakes.conversations.currentId = 1
    }

    // Fix 7: Ctrl+O opens the model file dialog, as the menu's "Open GGUF file…" does.
    function test_12_openShortcut() {
        const dialog = modelFileDialog()
        verify(dialog)
        fakes.models.loading = true
        keySequence(StandardKey.Open)
        wait(100)
        verify(!dialog.visible, "opened while a model loads")
        fakes.models.loading = false
        keySequence(StandardKey.Open)
        tryVerify(() => dialog.visible, 3000)
        dialog.reject()
        tryVerify(() => !dialog.visible, 3000)
    }

    // Fix 7: the shortcuts stay quiet while a dialog is open; Esc closes the dialog only.
    function test_13_shortcutsQuietUnderDialog() {
        fakes.chat.beginEdit()
        openSettings()
        keyClick(Qt.Key_PageDown, Qt.ControlModifier)
        compare(fakes.conversations.currentId, 1)
        keyClick(Qt.Key_N, Qt.ControlModifier)
        compare(fakes.conversations.created, 0)
        keyClick(Qt.Key_Escape)
        tryVerify(() => !settingsDialog().visible, 1000)
        verify(fakes.chat.editing, "Esc under the dialog cancelled the edit")
    }

    // Fix 9: buttons' accessible names start with their visible text.
    function test_14_namesStartWithVisibleText() {
        const check = () => {
            const buttons = findAll(win.contentItem, i => i.visible && /Button/.test(typeName(i)) && i.text, [])
            verify(buttons.length > 5)
            for (const b of buttons)
                if (b.Accessible.name !== "" && b.text.length > 1)
                    verify(b.Accessible.name.indexOf(b.text.replace(" ▾", "")) === 0,
                           "\"" + b.Accessible.name + "\" for a button showing \"" + b.text + "\"")
        }
        check()
        fakes.chat.editing = true
        input().text = "x"
        check()
        input().clear()
    }

    // Fix 8: the "Stopped" note is readable on the bubble (4.5:1), and small print follows the
    // system font instead of fixed pixel sizes.
    function test_15_stoppedNoteAndFonts() {
        fakes.messages.append({role: "assistant", text: "Partial reply", streaming: false, stopped: true,
                               segments: [prose("Partial reply")],
                               finishNote: "Stopped", statsText: "3 tokens", notice: "Turns dropped to fit.",
                               versionCount: 1, versionIndex: 0})
        tryVerify(() => all(i => i.visible && i.text === "Stopped").length > 0, 1000)
        const note = one(i => i.visible && i.text === "Stopped", "Stopped note")
        const a = luminance(note.color), b = luminance(pal.base)
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
        verify(ratio >= 4.5, "contrast " + ratio.toFixed(2) + " of " + note.color + " on " + pal.base)
        // Small print is a fraction of the application font (a size in pixels ignores the
        // system's font size setting): stats, notes, Copy buttons, dates, the model summary.
        const app = Qt.application.font.pointSize
        for (const text of ["3 tokens", "Stopped", "Turns dropped to fit.", "Copy", "10:00", "s · CPU"]) {
            const item = one(i => i.visible && i.font !== undefined && i.text === text, text)
            const ratio = item.font.pointSize / app
            verify(Math.abs(ratio - 0.85) < 0.001 || Math.abs(ratio - 0.8) < 0.001,
                   text + ": " + item.font.pointSize + "pt, " + item.font.pixelSize + "px; application: "
                   + app + "pt")
        }
        fakes.messages.clear()
    }

    // Issue 38: Ctrl+F goes to the conversation search, its text selected to type over.
    function test_16_ctrlFSearches() {
        const search = one(i => i.objectName === "searchField", "search field")
        search.text = "old"
        input().forceActiveFocus()
        keyClick(Qt.Key_F, Qt.ControlModifier)
        verify(search.activeFocus, "Ctrl+F did not reach the search field")
        compare(search.selectedText, "old")
        search.text = ""
    }

    // Issue 38: F1 lists the keyboard shortcuts, Ctrl+F among them.
    function test_17_f1ListsShortcuts() {
        keyClick(Qt.Key_F1)
        let d = null
        for (let i = 0; i < win.contentData.length; ++i)
            if (win.contentData[i] && win.contentData[i].objectName === "shortcutsDialog")
                d = win.contentData[i]
        verify(d, "no shortcuts dialog")
        tryVerify(() => d.opened, 3000)
        const keys = all(i => i.visible && i.objectName === "shortcutKeys").map(i => i.text)
        verify(keys.indexOf("Ctrl+F") >= 0, keys.join(", "))
        verify(keys.indexOf("Ctrl+N") >= 0, keys.join(", "))
        compare(all(i => i.visible && i.objectName === "shortcutAction").length, keys.length)
        keyClick(Qt.Key_Escape)
        tryVerify(() => !d.visible, 3000)
    }

    // Issue 38: a Copy button says "Copied" for a moment after it copied.
    function test_18_copySaysCopied() {
        addMessages(2)
        const list = messageList()
        // The first message's own button: delegates of earlier tests may linger until deleted.
        tryVerify(() => list.itemAtIndex(0) !== null && list.itemAtIndex(0).text === "Message number 0 with some text"
                        && findAll(list.itemAtIndex(0), i => i.objectName === "copyMessage", []).length > 0, 3000)
        const b = findAll(list.itemAtIndex(0), i => i.objectName === "copyMessage", [])[0]
        compare(b.text, "Copy")
        b.clicked()
        compare(fakes.clipboard.copied, "Message number 0 with some text")
        compare(b.text, "Copied")
        tryCompare(b, "text", "Copy", 3000)
    }

    // Issue 38: without a model the empty chat is a welcome with the way to one.
    function test_19_welcomeWithoutAModel() {
        const welcome = () => all(i => i.objectName === "welcome")[0]
        tryVerify(() => messageList().count === 0, 3000)
        verify(!welcome().visible)  // the fakes have a model
        fakes.models.hasModel = false
        tryVerify(() => welcome().visible, 3000)
        verify(one(i => i.visible && i.objectName === "welcomeOpenModel", "open button").text.indexOf("Open model file") === 0)
        // The catalogue's models, each with its Download button.
        fakes.catalogue.entries = [{name: "Tiny", file: "tiny.gguf", url: "https://example.com/tiny.gguf", size: "1 MB",
                                    about: "a test", present: false, verified: true}]
        const download = () => all(i => i.visible && i.objectName === "catalogueDownload")[0]
        tryVerify(() => download() !== undefined, 3000)
        compare(download().text, "Download")
        download().clicked()
        compare(fakes.catalogue.downloads, [0])
        fakes.catalogue.entries = []
        fakes.models.hasModel = true
        tryVerify(() => !welcome().visible, 3000)
    }

    // Issue 38: the panel's legend says what the bars' two shades mean, in those shades.
    function test_20_pyramidLegend() {
        const legend = one(i => i.objectName === "pyramidLegend", "legend")
        verify(!legend.visible)
        fakes.stats.hasStats = true
        tryVerify(() => legend.visible, 3000)
        const swatches = findAll(legend, i => i.objectName === "legendSwatch", [])
        const texts = findAll(legend, i => i.objectName === "legendText", []).map(i => i.text)
        compare(swatches.length, 2)
        verify(!Qt.colorEqual(swatches[0].color, swatches[1].color))
        compare(texts, ["entries kept", "entries kept; some just dropped"])
        fakes.stats.hasStats = false
    }

    // Issue 38: each message has a Delete button (named for what it deletes), off while a reply runs.
    function test_21_deleteOneMessage() {
        addMessages(2)
        const list = messageList()
        tryVerify(() => list.itemAtIndex(1) !== null && list.itemAtIndex(1).text === "Message number 1 with some text"
                        && findAll(list.itemAtIndex(1), i => i.objectName === "deleteMessage", []).length > 0, 3000)
        const b = findAll(list.itemAtIndex(1), i => i.objectName === "deleteMessage", [])[0]
        verify(b.Accessible.name.indexOf("Delete, Assistant: Message number 1") === 0, b.Accessible.name)
        fakes.chat.busy = true
        verify(!b.enabled)
        fakes.chat.busy = false
        b.clicked()
        compare(fakes.chat.deleted, [1])
    }

    // Issue 38: the space above the pyramid charts the reply's KV memory once it has a course.
    function test_22_memoryChart() {
        const chart = one(i => i.objectName === "memoryChart", "memory chart")
        verify(!chart.visible)
        fakes.stats.kvHistory = [{tokens: 10, kv: 100, full: 100}]
        verify(!chart.visible)  // one point is no course
        fakes.stats.kvHistory = [{tokens: 10, kv: 100, full: 100}, {tokens: 20, kv: 120, full: 200}]
        verify(chart.visible)
        fakes.stats.kvHistory = []
    }

    // Issue 38: a regenerated reply shows "‹ 2/3 ›"; the arrows page its versions, on the last reply only.
    function test_23_replyVersions() {
        addMessages(2)
        fakes.messages.setProperty(1, "versionCount", 3)
        fakes.messages.setProperty(1, "versionIndex", 1)
        const list = messageList()
        tryVerify(() => list.itemAtIndex(1) !== null && list.itemAtIndex(1).versionCount === 3, 3000)
        const item = list.itemAtIndex(1)
        const label = findAll(item, i => i.objectName === "versionLabel", [])[0]
        compare(label.text, "2/3")
        const older = findAll(item, i => i.objectName === "olderVersion", [])[0]
        const newer = findAll(item, i => i.objectName === "newerVersion", [])[0]
        verify(older.enabled && newer.enabled)
        older.clicked()
        compare(fakes.chat.pages, [[1, -1]])
        verify(!findAll(list.itemAtIndex(0), i => i.objectName === "versions", [])[0].visible)  // one version: none shown
        addMessages(1)  // no longer the last reply
        tryVerify(() => !older.enabled, 3000)
        fakes.chat.pages = []
    }

    // Fix 7: Ctrl+Q closes the window, the path on which a running reply is stored. Last.
    // Settings -> Server: the address under the port, and the server's requests in the live
    // panel, only while it serves.
    function test_24_serverStatus() {
        fakes.settings.append({key: "serve_port", group: "Server", label: "Port",
                               help: "help", kind: "integer", text: "8080", error: "", choices: [],
                               choiceLabels: [], choiceIndex: -1, groupNote: "", active: true})
        const activity = one(i => i.objectName === "serverActivity", "server activity")
        verify(!activity.visible)
        fakes.server.state = "serving"
        fakes.server.statusText = "Serving model.gguf at http://127.0.0.1:8080"
        fakes.server.activityText = "2 running, 1 waiting, 5 answered"
        tryVerify(() => activity.visible, 1000)
        compare(activity.text, "2 running, 1 waiting, 5 answered")
        openSettings()
        tryVerify(() => all(i => i.visible && i.objectName === "serverStatus").length === 1, 2000)
        compare(one(i => i.visible && i.objectName === "serverStatus", "server status").text,
                "Serving model.gguf at http://127.0.0.1:8080")
        keyClick(Qt.Key_Escape)
        fakes.server.state = "off"
        tryVerify(() => !activity.visible, 1000)
    }

    function test_99_quitShortcut() {
        keyClick(Qt.Key_Q, Qt.ControlModifier)
        tryVerify(() => !win.visible, 1000)
    }
}

