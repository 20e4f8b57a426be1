<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de" sourcelanguage="en">
<context>
    <name>CacheStatsModel</name>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 Token/s</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 prompt + %2 generated</source>
        <translation>%1 im Prompt + %2 generiert</translation>
    </message>
    <message>
        <source>No reply yet</source>
        <translation>Noch keine Antwort</translation>
    </message>
    <message>
        <source>Reading the prompt</source>
        <translation>Prompt wird gelesen</translation>
    </message>
    <message>
        <source>Generating</source>
        <translation>Wird generiert</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Fertig</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU-Speicher</translation>
    </message>
    <message>
        <source>Process memory</source>
        <translation>Prozessspeicher</translation>
    </message>
    <message>
        <source>%1 of %2, %3 of it this app&apos;s</source>
        <translation>%1 von %2, davon %3 für diese App</translation>
    </message>
    <message numerus="yes">
        <source>CPU, %n thread(s), %1 KV cache</source>
        <translation>
            <numerusform>CPU, %n Thread, %1-KV-Cache</numerusform>
            <numerusform>CPU, %n Threads, %1-KV-Cache</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU (CUDA): %1</source>
        <translation>GPU (CUDA): %1</translation>
    </message>
    <message>
        <source>%1 (%2 in blocks)</source>
        <translation>%1 (%2 in Blöcken)</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <source>Open a model before sending a message.</source>
        <translation>Öffnen Sie ein Modell, bevor Sie eine Nachricht senden.</translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation>Die Antwort ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>The reply was cut off: it reached the end of the model&apos;s context.</source>
        <translation>Die Antwort wurde abgeschnitten: Sie hat das Ende des Modellkontexts erreicht.</translation>
    </message>
    <message>
        <source>The conversation no longer fits the model&apos;s context.</source>
        <translation>Die Unterhaltung passt nicht mehr in den Kontext des Modells.</translation>
    </message>
    <message>
        <source>To go on, set “When the context is full” in Settings to drop the oldest turns or re-encode positions and press Regenerate, or start a new chat.</source>
        <translation>Um fortzufahren, stellen Sie in den Einstellungen „Wenn der Kontext voll ist“ auf „Älteste Runden verwerfen“ oder „Positionen neu kodieren“ und klicken Sie auf „Neu generieren“, oder beginnen Sie einen neuen Chat.</translation>
    </message>
    <message>
        <source>Edit the last message shorter, or start a new chat.</source>
        <translation>Kürzen Sie die letzte Nachricht oder beginnen Sie einen neuen Chat.</translation>
    </message>
    <message>
        <source>The next turn drops the oldest exchanges to make room.</source>
        <translation>Die nächste Runde verwirft die ältesten Wechsel, um Platz zu schaffen.</translation>
    </message>
    <message>
        <source>The chat history could not be read or saved (%1).</source>
        <translation>Der Chatverlauf konnte nicht gelesen oder gespeichert werden (%1).</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>one sentence after another</comment>
        <translation>%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>The conversation outgrew the model&apos;s context: the oldest %n exchange(s) were left out of the prompt.</source>
        <translation>
            <numerusform>Die Unterhaltung passte nicht mehr in den Kontext des Modells: %n ältester Wechsel wurde aus dem Prompt genommen.</numerusform>
            <numerusform>Die Unterhaltung passte nicht mehr in den Kontext des Modells: Die %n ältesten Wechsel wurden aus dem Prompt genommen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The context was full: the oldest %n position(s) were dropped and the rest renumbered.</source>
        <translation>
            <numerusform>Der Kontext war voll: %n älteste Position wurde verworfen und der Rest neu nummeriert.</numerusform>
            <numerusform>Der Kontext war voll: Die %n ältesten Positionen wurden verworfen und der Rest neu nummeriert.</numerusform>
        </translation>
    </message>
    <message>
        <source>The last message is too long for the model&apos;s context: it takes %1 tokens, the reply needs room for %2 more, and the context holds %3.</source>
        <translation>Die letzte Nachricht ist zu lang für den Kontext des Modells: Sie braucht %1 Token, die Antwort Platz für %2 weitere, und der Kontext fasst %3.</translation>
    </message>
    <message>
        <source>The conversation no longer fits the model&apos;s context: it takes %1 tokens, the reply needs room for %2 more, and the context holds %3.</source>
        <translation>Die Unterhaltung passt nicht mehr in den Kontext des Modells: Sie braucht %1 Token, die Antwort Platz für %2 weitere, und der Kontext fasst %3.</translation>
    </message>
    <message>
        <source>This message may not fit: it takes about %1 tokens, and %2 of the context&apos;s %3 positions are left once the reply has room. When the context is full: %4.</source>
        <translation>Diese Nachricht passt womöglich nicht: Sie braucht etwa %1 Token, und von den %3 Positionen des Kontexts bleiben %2, wenn die Antwort Platz hat. Wenn der Kontext voll ist: %4.</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Messages</source>
        <translation>Nachrichten</translation>
    </message>
    <message>
        <source>Type a message below to start. Enter sends, Shift+Enter starts a new line, Esc stops a reply.</source>
        <translation>Geben Sie unten eine Nachricht ein, um zu beginnen. Eingabe sendet, Umschalt+Eingabe beginnt eine neue Zeile, Esc stoppt eine Antwort.</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Dismiss the error</source>
        <translation>Fehlermeldung schließen</translation>
    </message>
    <message>
        <source>Welcome to PyramidChat</source>
        <translation>Willkommen bei PyramidChat</translation>
    </message>
    <message>
        <source>No model is open: PyramidChat comes without one. Open a LLaMA-family chat model in GGUF format (such as SmolLM2-135M-Instruct or TinyLlama-1.1B-Chat), or put one in the models folder, where it is found at every start.</source>
        <translation>Kein Modell ist geöffnet: PyramidChat wird ohne Modell ausgeliefert. Öffnen Sie ein Chatmodell der LLaMA-Familie im GGUF-Format (etwa SmolLM2-135M-Instruct oder TinyLlama-1.1B-Chat), oder legen Sie eines in den Modellordner, wo es bei jedem Start gefunden wird.</translation>
    </message>
    <message>
        <source>Open model file…</source>
        <translation>Modelldatei öffnen…</translation>
    </message>
    <message>
        <source>Show the models folder</source>
        <translation>Modellordner anzeigen</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Downloaded</source>
        <translation>Heruntergeladen</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>%1 herunterladen</translation>
    </message>
    <message>
        <source>Downloading %1…</source>
        <translation>%1 wird heruntergeladen…</translation>
    </message>
    <message>
        <source>Download progress</source>
        <translation>Fortschritt des Downloads</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Cancel the download</source>
        <translation>Den Download abbrechen</translation>
    </message>
    <message>
        <source>not verified</source>
        <translation>nicht geprüft</translation>
    </message>
    <message>
        <source>No SHA-256 is known for this file, so the download cannot be checked: it is kept as it arrives.</source>
        <translation>Für diese Datei ist keine SHA-256-Prüfsumme bekannt, daher kann der Download nicht geprüft werden: Er wird so behalten, wie er ankommt.</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Cancel edit</source>
        <translation>Bearbeiten abbrechen</translation>
    </message>
    <message>
        <source>Edit last</source>
        <translation>Letzte bearbeiten</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>Neu generieren</translation>
    </message>
    <message>
        <source>Regenerate the last reply</source>
        <translation>Letzte Antwort neu generieren</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Nachricht</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>Erneut senden</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>Nachricht senden</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>Stop the reply (Esc)</source>
        <translation>Antwort stoppen (Esc)</translation>
    </message>
    <message>
        <source>Edit the last message and send it again</source>
        <translation>Die letzte Nachricht bearbeiten und erneut senden</translation>
    </message>
    <message>
        <source>Replace the last message and send it again</source>
        <translation>Die letzte Nachricht ersetzen und erneut senden</translation>
    </message>
    <message>
        <source>A reply is still being written in another conversation: send when it is done, or stop it.</source>
        <translation>In einer anderen Unterhaltung wird noch eine Antwort geschrieben: Senden Sie, wenn sie fertig ist, oder halten Sie sie an.</translation>
    </message>
    <message>
        <source>Editing your message: sending it goes on from there, and the earlier text stays as a version</source>
        <translation>Sie bearbeiten Ihre Nachricht: Beim Senden geht das Gespräch von dort weiter, und der frühere Text bleibt als Version erhalten</translation>
    </message>
    <message>
        <source>Cancel editing and keep the message as it was (Esc)</source>
        <translation>Bearbeiten abbrechen und die Nachricht unverändert lassen (Esc)</translation>
    </message>
</context>
<context>
    <name>ConversationExport</name>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>User</source>
        <translation>Benutzer</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistent</translation>
    </message>
    <message>
        <source>(stopped)</source>
        <translation>(gestoppt)</translation>
    </message>
</context>
<context>
    <name>ConversationImport</name>
    <message>
        <source>It is no conversation export: it has no list of messages.</source>
        <translation>Es ist kein Export einer Unterhaltung: Es enthält keine Liste von Nachrichten.</translation>
    </message>
    <message>
        <source>Message %1 has no text, or no role of user or assistant.</source>
        <translation>Nachricht %1 hat keinen Text oder keine Rolle „user“ oder „assistant“.</translation>
    </message>
    <message>
        <source>It is no conversation export: it does not start with a “# ” title.</source>
        <translation>Es ist kein Export einer Unterhaltung: Es beginnt nicht mit einem Titel „# “.</translation>
    </message>
    <message>
        <source>It holds no messages: no “## User” or “## Assistant” heading was found.</source>
        <translation>Es enthält keine Nachrichten: Keine Überschrift „## Benutzer“ oder „## Assistent“ wurde gefunden.</translation>
    </message>
    <message>
        <source>It is not valid JSON (at byte %1).</source>
        <translation>Es ist kein gültiges JSON (bei Byte %1).</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>Deleted “%1”</source>
        <translation>„%1“ gelöscht</translation>
    </message>
    <message>
        <source>The conversation no longer exists.</source>
        <translation>Die Unterhaltung existiert nicht mehr.</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Could not write %1: only files on this computer can be written.</source>
        <translation>%1 konnte nicht geschrieben werden: nur Dateien auf diesem Computer lassen sich schreiben.</translation>
    </message>
    <message>
        <source>conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>%1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>only files on this computer can be read.</source>
        <translation>nur Dateien auf diesem Computer lassen sich lesen.</translation>
    </message>
    <message>
        <source>Could not import %1: it is larger than 64 MB, far more than a conversation.</source>
        <translation>%1 konnte nicht importiert werden: Die Datei ist größer als 64 MB, weit mehr als eine Unterhaltung.</translation>
    </message>
    <message>
        <source>Could not import %1: %2</source>
        <translation>%1 konnte nicht importiert werden: %2</translation>
    </message>
    <message>
        <source>Could not import %1: the chat history could not be written.</source>
        <translation>%1 konnte nicht importiert werden: Der Chatverlauf ließ sich nicht schreiben.</translation>
    </message>
</context>
<context>
    <name>ConversationSidebar</name>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>Neue Unterhaltung beginnen (Strg+N)</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>Unterhaltungen durchsuchen</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Unterhaltungen</translation>
    </message>
    <message>
        <source>Actions for %1</source>
        <translation>Aktionen für %1</translation>
    </message>
    <message>
        <source>No conversations</source>
        <translation>Keine Unterhaltungen</translation>
    </message>
    <message>
        <source>Nothing found</source>
        <translation>Nichts gefunden</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Rückgängig</translation>
    </message>
    <message>
        <source>Undo delete</source>
        <translation>Löschen rückgängig machen</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>Umbenennen…</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>Als Markdown exportieren…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>Als JSON exportieren…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>Unterhaltung umbenennen</translation>
    </message>
    <message>
        <source>New title</source>
        <translation>Neuer Titel</translation>
    </message>
    <message>
        <source>Export conversation</source>
        <translation>Unterhaltung exportieren</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
    <message>
        <source>The conversation was saved as %1.</source>
        <translation>Die Unterhaltung wurde als %1 gespeichert.</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Exportieren</translation>
    </message>
    <message>
        <source>Replace the file?</source>
        <translation>Datei ersetzen?</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it with this conversation?</source>
        <translation>%1 ist bereits vorhanden. Durch diese Unterhaltung ersetzen?</translation>
    </message>
    <message>
        <source>Exported</source>
        <translation>Exportiert</translation>
    </message>
    <message>
        <source>Search conversations (Ctrl+F)</source>
        <translation>Unterhaltungen durchsuchen (Strg+F)</translation>
    </message>
    <message>
        <source>Import failed</source>
        <translation>Import fehlgeschlagen</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>Importieren…</translation>
    </message>
    <message>
        <source>Read a Markdown or JSON export back as a conversation</source>
        <translation>Einen Markdown- oder JSON-Export wieder als Unterhaltung einlesen</translation>
    </message>
    <message>
        <source>Import a conversation</source>
        <translation>Eine Unterhaltung importieren</translation>
    </message>
    <message>
        <source>Conversation exports (*.md *.json)</source>
        <translation>Exporte von Unterhaltungen (*.md *.json)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>DesktopServer</name>
    <message>
        <source>Serving %1 at %2</source>
        <translation>Stellt %1 unter %2 bereit</translation>
    </message>
    <message>
        <source>Starts once a model is open</source>
        <translation>Startet, sobald ein Modell geöffnet ist</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Wird beendet…</translation>
    </message>
    <message>
        <source>Not serving</source>
        <translation>Nicht aktiv</translation>
    </message>
    <message>
        <source>%1 running, %2 waiting, %3 answered</source>
        <translation>%1 laufen, %2 warten, %3 beantwortet</translation>
    </message>
    <message>
        <source>Cannot serve on port %1: another program uses it, or it is not allowed. Choose another port.</source>
        <translation>Port %1 kann nicht genutzt werden: Ein anderes Programm belegt ihn, oder er ist nicht erlaubt. Wählen Sie einen anderen Port.</translation>
    </message>
    <message>
        <source>KV cache %1 (a full one: %2)</source>
        <translation>KV-Cache %1 (ein vollständiger: %2)</translation>
    </message>
</context>
<context>
    <name>LayerPyramid</name>
    <message>
        <source>KV cache length per layer</source>
        <translation>KV-Cache-Länge pro Schicht</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 entries</source>
        <translation>Schicht %1: %2 von %3 Einträgen</translation>
    </message>
    <message>
        <source>L%1  %2</source>
        <translation>S%1  %2</translation>
    </message>
    <message>
        <source>Send a message to see how much of each layer&apos;s cache is kept.</source>
        <translation>Senden Sie eine Nachricht, um zu sehen, wie viel vom Cache jeder Schicht behalten wird.</translation>
    </message>
</context>
<context>
    <name>LivePanel</name>
    <message>
        <source>KV cache</source>
        <translation>KV-Cache</translation>
    </message>
    <message>
        <source>Entries per layer (bar) against a full cache of %1 (outline)</source>
        <translation>Einträge pro Schicht (Balken) im Vergleich zu einem vollen Cache mit %1 (Umriss)</translation>
    </message>
    <message>
        <source>KV memory</source>
        <translation>KV-Speicher</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>Eingespart</translation>
    </message>
    <message>
        <source>KV cache saving</source>
        <translation>Einsparung beim KV-Cache</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>Kontext</translation>
    </message>
    <message>
        <source>Context fill</source>
        <translation>Kontextauslastung</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Geschwindigkeit</translation>
    </message>
    <message>
        <source>First token</source>
        <translation>Erstes Token</translation>
    </message>
    <message>
        <source>GPU memory in use</source>
        <translation>Belegter GPU-Speicher</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>entries kept</source>
        <translation>behaltene Einträge</translation>
    </message>
    <message>
        <source>entries kept; some just dropped</source>
        <translation>behaltene Einträge; soeben welche verworfen</translation>
    </message>
    <message>
        <source>KV memory during the reply: kept (filled) against a full cache (line)</source>
        <translation>KV-Speicher während der Antwort: behalten (Fläche) im Vergleich zu einem vollen Cache (Linie)</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>Server</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>%1 — PyramidChat</source>
        <translation>%1 — PyramidChat</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistent</translation>
    </message>
    <message>
        <source>Reply in progress</source>
        <translation>Antwort wird generiert</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Copy the message</source>
        <translation>Nachricht kopieren</translation>
    </message>
    <message>
        <source>code</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>Code kopieren</translation>
    </message>
    <message>
        <source>Copy the code</source>
        <translation>Den Code kopieren</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>Denkt nach…</translation>
    </message>
    <message>
        <source>System note: %1</source>
        <translation>Systemhinweis: %1</translation>
    </message>
    <message>
        <source>Copy, %1: %2</source>
        <translation>Kopieren, %1: %2</translation>
    </message>
    <message>
        <source>Copy code, %1: %2</source>
        <translation>Code kopieren, %1: %2</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Kopiert</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Delete, %1: %2</source>
        <translation>Löschen, %1: %2</translation>
    </message>
    <message>
        <source>Delete this message from the conversation</source>
        <translation>Diese Nachricht aus der Unterhaltung löschen</translation>
    </message>
    <message>
        <source>Earlier version</source>
        <translation>Frühere Fassung</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <comment>version of a reply</comment>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Later version</source>
        <translation>Spätere Fassung</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Bearbeiten</translation>
    </message>
    <message>
        <source>Edit, %1: %2</source>
        <translation>Bearbeiten, %1: %2</translation>
    </message>
    <message>
        <source>Edit this message and send it again; the conversation goes on from there</source>
        <translation>Diese Nachricht bearbeiten und erneut senden; das Gespräch geht von dort weiter</translation>
    </message>
</context>
<context>
    <name>MessageListModel</name>
    <message>
        <source>Stopped</source>
        <translation>Gestoppt</translation>
    </message>
    <message>
        <source>Reached the reply length limit</source>
        <translation>Längenbegrenzung der Antwort erreicht</translation>
    </message>
    <message>
        <source>Cut off: the context window is full</source>
        <translation>Abgeschnitten: Das Kontextfenster ist voll</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s) · %1 tokens/s · first token %2 ms</source>
        <translation>
            <numerusform>%n Token · %1 Token/s · erstes Token nach %2 ms</numerusform>
            <numerusform>%n Token · %1 Token/s · erstes Token nach %2 ms</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · cache kept</source>
        <translation>%1 · Cache beibehalten</translation>
    </message>
    <message>
        <source>Interrupted by an error</source>
        <translation>Durch einen Fehler unterbrochen</translation>
    </message>
</context>
<context>
    <name>ModelBar</name>
    <message>
        <source>Show conversations</source>
        <translation>Unterhaltungen anzeigen</translation>
    </message>
    <message>
        <source>Show or hide the conversations</source>
        <translation>Unterhaltungen ein- oder ausblenden</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>%1 wird geöffnet…</translation>
    </message>
    <message>
        <source>No model open</source>
        <translation>Kein Modell geöffnet</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Model loading progress</source>
        <translation>Ladefortschritt des Modells</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Cancel opening the model</source>
        <translation>Öffnen des Modells abbrechen</translation>
    </message>
    <message>
        <source>Model ▾</source>
        <translation>Modell ▾</translation>
    </message>
    <message>
        <source>Model menu</source>
        <translation>Modellmenü</translation>
    </message>
    <message>
        <source>Open GGUF file…</source>
        <translation>GGUF-Datei öffnen…</translation>
    </message>
    <message>
        <source>Open Hugging Face folder…</source>
        <translation>Hugging-Face-Ordner öffnen…</translation>
    </message>
    <message>
        <source>Models found</source>
        <translation>Gefundene Modelle</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>Zuletzt verwendet</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Cache panel</source>
        <translation>Cache-Ansicht</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Dismiss the model error</source>
        <translation>Modellfehler schließen</translation>
    </message>
    <message>
        <source>Open a GGUF model</source>
        <translation>GGUF-Modell öffnen</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF-Modelle (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>Hugging-Face-Modellordner öffnen</translation>
    </message>
    <message>
        <source>Open the settings (Ctrl+,)</source>
        <translation>Einstellungen öffnen (Strg+,)</translation>
    </message>
    <message>
        <source>Show or hide the cache panel</source>
        <translation>Cache-Ansicht ein- oder ausblenden</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>%1 — cannot be opened: %2</source>
        <translation>%1 — lässt sich nicht öffnen: %2</translation>
    </message>
    <message>
        <source>Show the models folder</source>
        <translation>Modellordner anzeigen</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>List the keyboard shortcuts (F1)</source>
        <translation>Die Tastenkürzel auflisten (F1)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts (F1)</source>
        <translation>Tastenkürzel (F1)</translation>
    </message>
</context>
<context>
    <name>ModelCatalogue</name>
    <message>
        <source>%1 is not a catalogue: it needs a “models” list.</source>
        <translation>%1 ist kein Katalog: Er braucht eine Liste „models“.</translation>
    </message>
    <message>
        <source>Left out of the catalogue, for a missing name, a file name that is not a plain .gguf name, an address that is not http(s) or a SHA-256 that is not 64 hex digits: %1</source>
        <translation>Aus dem Katalog weggelassen, weil ein Name fehlt, der Dateiname kein einfacher .gguf-Name ist, die Adresse nicht http(s) ist oder der SHA-256 nicht aus 64 Hex-Ziffern besteht: %1</translation>
    </message>
</context>
<context>
    <name>ModelDownload</name>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>after %1 of %2</source>
        <translation>nach %1 von %2</translation>
    </message>
    <message>
        <source>after %1</source>
        <translation>nach %1</translation>
    </message>
    <message>
        <source>the server answered %1</source>
        <translation>der Server antwortete mit %1</translation>
    </message>
    <message>
        <source>The download stopped %1 (%2). Start it again to go on from there.</source>
        <translation>Der Download brach %1 ab (%2). Starten Sie ihn erneut, um dort fortzufahren.</translation>
    </message>
    <message>
        <source>Could not read %1 to check it: %2</source>
        <translation>%1 konnte zur Prüfung nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>The file that arrived is not the one expected (its SHA-256 is %1, not %2), so it was deleted. Try again later, or check the catalogue&apos;s address.</source>
        <translation>Die angekommene Datei ist nicht die erwartete (ihr SHA-256 ist %1, nicht %2), daher wurde sie gelöscht. Versuchen Sie es später erneut oder prüfen Sie die Adresse im Katalog.</translation>
    </message>
    <message>
        <source>Could not move the download into place as %1.</source>
        <translation>Der Download konnte nicht als %1 an seinen Platz verschoben werden.</translation>
    </message>
    <message>
        <source>the connection closed early</source>
        <translation>die Verbindung endete zu früh</translation>
    </message>
</context>
<context>
    <name>ModelFileInfo</name>
    <message>
        <source>it cannot be read (%1)</source>
        <translation>sie ist nicht lesbar (%1)</translation>
    </message>
    <message>
        <source>it is not a GGUF file</source>
        <translation>sie ist keine GGUF-Datei</translation>
    </message>
    <message>
        <source>it holds no weights (a tokenizer&apos;s vocabulary only)</source>
        <translation>sie enthält keine Gewichte (nur das Vokabular eines Tokenizers)</translation>
    </message>
    <message>
        <source>it is damaged: %1</source>
        <translation>sie ist beschädigt: %1</translation>
    </message>
    <message>
        <source>its config.json cannot be read (%1)</source>
        <translation>seine config.json ist nicht lesbar (%1)</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n Schicht</numerusform>
            <numerusform>%n Schichten</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 positions</source>
        <translation>%1 Positionen</translation>
    </message>
    <message>
        <source> · </source>
        <comment>between the facts of a model</comment>
        <translation> · </translation>
    </message>
    <message>
        <source>it is not a regular file</source>
        <translation>sie ist keine reguläre Datei</translation>
    </message>
    <message>
        <source>its architecture %1 is not supported (LLaMA only)</source>
        <translation>ihre Architektur %1 wird nicht unterstützt (nur LLaMA)</translation>
    </message>
    <message>
        <source>About %1: weights %2, KV cache %3 at %4 positions (%5 with PyramidInfer)</source>
        <translation>Etwa %1: Gewichte %2, KV-Cache %3 bei %4 Positionen (%5 mit PyramidInfer)</translation>
    </message>
</context>
<context>
    <name>ModelManager</name>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 existiert nicht.</translation>
    </message>
    <message>
        <source>%1 is not a model folder: it needs config.json and .safetensors weights.</source>
        <translation>%1 ist kein Modellordner: Er braucht config.json und Gewichte im .safetensors-Format.</translation>
    </message>
    <message>
        <source>No model found in %1. Open a GGUF file or a Hugging Face folder.</source>
        <translation>In %1 wurde kein Modell gefunden. Öffnen Sie eine GGUF-Datei oder einen Hugging-Face-Ordner.</translation>
    </message>
    <message>
        <source>No model open</source>
        <translation>Kein Modell geöffnet</translation>
    </message>
    <message>
        <source>%1 · %2 layers · %3 positions · %4 · %5</source>
        <translation>%1 · %2 Schichten · %3 Positionen · %4 · %5</translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation>%1 konnte nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>%1 Opened %2 instead.</source>
        <translation>%1 Stattdessen wurde %2 geöffnet.</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>System prompt for this conversation</source>
        <translation>Systemprompt für diese Unterhaltung</translation>
    </message>
    <message>
        <source>None: the model gets no system prompt</source>
        <translation>Keiner: Das Modell erhält keinen Systemprompt</translation>
    </message>
    <message>
        <source>Compression preset</source>
        <translation>Komprimierungsvorgabe</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>Anwenden</translation>
    </message>
    <message>
        <source>Apply the compression preset</source>
        <translation>Komprimierungsvorgabe anwenden</translation>
    </message>
    <message>
        <source>Reset all</source>
        <translation>Alles zurücksetzen</translation>
    </message>
    <message>
        <source>Reset all settings to their defaults</source>
        <translation>Alle Einstellungen auf die Standardwerte zurücksetzen</translation>
    </message>
    <message>
        <source>Fields marked in red are not applied; replies use their last valid value.</source>
        <translation>Rot markierte Felder werden nicht übernommen; Antworten verwenden ihren letzten gültigen Wert.</translation>
    </message>
    <message>
        <source>Changes apply to the next reply; the language, the device, the CPU threads and the cache precision when the app starts again.</source>
        <translation>Änderungen gelten ab der nächsten Antwort; Sprache, Gerät, CPU-Threads und Cache-Genauigkeit beim nächsten Start der App.</translation>
    </message>
    <message>
        <source>Restart PyramidChat to use the new language, device, CPU threads or cache precision.</source>
        <translation>Starten Sie PyramidChat neu, um die neue Sprache, das neue Gerät, die neuen CPU-Threads oder die neue Cache-Genauigkeit zu verwenden.</translation>
    </message>
    <message>
        <source>Reset all settings?</source>
        <translation>Alle Einstellungen zurücksetzen?</translation>
    </message>
    <message>
        <source>Every generation, multi-turn and cache setting goes back to its default, and the prompt format to automatic. The language, the theme, the device, the cache precision and the server stay as they are.</source>
        <translation>Alle Einstellungen zu Generierung, mehreren Runden und Cache kehren zu ihren Standardwerten zurück, das Prompt-Format zu „Automatisch“. Sprache, Farbschema, Gerät, Cache-Genauigkeit und Server bleiben, wie sie sind.</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Benutzerdefiniert</translation>
    </message>
</context>
<context>
    <name>SettingsModel</name>
    <message>
        <source>Generation</source>
        <translation>Generierung</translation>
    </message>
    <message>
        <source>Multi-turn</source>
        <translation>Gesprächsrunden</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV-Cache</translation>
    </message>
    <message>
        <source>PyramidInfer</source>
        <translation>PyramidInfer</translation>
    </message>
    <message>
        <source>Prompt format</source>
        <translation>Prompt-Format</translation>
    </message>
    <message>
        <source>Reply length limit (tokens)</source>
        <translation>Maximale Antwortlänge (Token)</translation>
    </message>
    <message>
        <source>The most tokens one reply may have</source>
        <translation>Höchstzahl an Token pro Antwort</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>0 picks the most likely token every time</source>
        <translation>0 wählt immer das wahrscheinlichste Token</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Sample among this many most likely tokens (0: off)</source>
        <translation>Aus so vielen der wahrscheinlichsten Token auswählen (0: aus)</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Sample among the tokens covering this probability (1: off)</source>
        <translation>Aus den Token auswählen, die zusammen diese Wahrscheinlichkeit abdecken (1: aus)</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Drop tokens below this fraction of the best one (0: off)</source>
        <translation>Token unterhalb dieses Anteils des besten verwerfen (0: aus)</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>Wiederholungsstrafe</translation>
    </message>
    <message>
        <source>Above 1 discourages repeating recent tokens (1: off)</source>
        <translation>Über 1 bremst das Wiederholen kürzlich generierter Token (1: aus)</translation>
    </message>
    <message>
        <source>Repetition window</source>
        <translation>Wiederholungsfenster</translation>
    </message>
    <message>
        <source>How many recent tokens the penalty looks at</source>
        <translation>Wie viele der letzten Token die Strafe berücksichtigt</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <source>0 draws a fresh seed for every reply</source>
        <translation>0 zieht für jede Antwort einen neuen Seed</translation>
    </message>
    <message>
        <source>Context mode</source>
        <translation>Kontextmodus</translation>
    </message>
    <message>
        <source>Keep the compressed cache and read only the new message, or read the whole conversation again for every reply</source>
        <translation>Den komprimierten Cache behalten und nur die neue Nachricht lesen, oder für jede Antwort die ganze Unterhaltung neu lesen</translation>
    </message>
    <message>
        <source>Extend the kept cache</source>
        <translation>Behaltenen Cache erweitern</translation>
    </message>
    <message>
        <source>Rebuild every turn</source>
        <translation>Jede Runde neu aufbauen</translation>
    </message>
    <message>
        <source>When the context is full</source>
        <translation>Wenn der Kontext voll ist</translation>
    </message>
    <message>
        <source>Refuse the reply, forget the oldest exchanges, or keep the first and most recent positions and renumber them</source>
        <translation>Die Antwort verweigern, die ältesten Wechsel vergessen, oder die ersten und die jüngsten Positionen behalten und neu nummerieren</translation>
    </message>
    <message>
        <source>Stop and say so</source>
        <translation>Anhalten und Bescheid geben</translation>
    </message>
    <message>
        <source>Drop the oldest turns</source>
        <translation>Älteste Runden verwerfen</translation>
    </message>
    <message>
        <source>Re-encode positions</source>
        <translation>Positionen neu kodieren</translation>
    </message>
    <message>
        <source>Compression</source>
        <translation>Komprimierung</translation>
    </message>
    <message>
        <source>Baseline recent fraction</source>
        <translation>Anteil neuester Einträge (Vergleichsverfahren)</translation>
    </message>
    <message>
        <source>Share of a local or H2O budget kept for the newest entries</source>
        <translation>Anteil des local- oder H2O-Budgets, der für die neuesten Einträge reserviert ist</translation>
    </message>
    <message>
        <source>Recent ratio</source>
        <translation>Anteil der jüngsten Token</translation>
    </message>
    <message>
        <source>Share of the prompt whose attention decides what is kept</source>
        <translation>Anteil des Prompts, dessen Attention entscheidet, was behalten wird</translation>
    </message>
    <message>
        <source>Prefill decay ratio</source>
        <translation>Abklingrate beim Prefill</translation>
    </message>
    <message>
        <source>How much each deeper layer keeps after the prompt</source>
        <translation>Wie viel jede tiefere Schicht nach dem Prompt behält</translation>
    </message>
    <message>
        <source>Prefill decay schedule</source>
        <translation>Abklingverlauf beim Prefill</translation>
    </message>
    <message>
        <source>How the kept share falls from layer to layer</source>
        <translation>Wie der behaltene Anteil von Schicht zu Schicht sinkt</translation>
    </message>
    <message>
        <source>Minimum context length</source>
        <translation>Minimale Kontextlänge</translation>
    </message>
    <message>
        <source>No layer keeps fewer entries than this</source>
        <translation>Keine Schicht behält weniger Einträge als diese</translation>
    </message>
    <message>
        <source>Layer interval</source>
        <translation>Schichtintervall</translation>
    </message>
    <message>
        <source>Compress every this many layers</source>
        <translation>Alle so viele Schichten komprimieren</translation>
    </message>
    <message>
        <source>Sink tokens</source>
        <translation>Sink-Token</translation>
    </message>
    <message>
        <source>First entries that are always kept</source>
        <translation>Erste Einträge, die immer behalten werden</translation>
    </message>
    <message>
        <source>Distance weight</source>
        <translation>Abstandsgewicht</translation>
    </message>
    <message>
        <source>Weight of the newest queries in the attention score</source>
        <translation>Gewicht der neuesten Queries in der Attention-Bewertung</translation>
    </message>
    <message>
        <source>Generation decay ratio</source>
        <translation>Abklingrate beim Generieren</translation>
    </message>
    <message>
        <source>How much each deeper layer keeps while generating</source>
        <translation>Wie viel jede tiefere Schicht beim Generieren behält</translation>
    </message>
    <message>
        <source>Generation decay schedule</source>
        <translation>Abklingverlauf beim Generieren</translation>
    </message>
    <message>
        <source>How that share falls from layer to layer</source>
        <translation>Wie dieser Anteil von Schicht zu Schicht sinkt</translation>
    </message>
    <message>
        <source>Generation compress ratio</source>
        <translation>Komprimierungsrate beim Generieren</translation>
    </message>
    <message>
        <source>Share of the new entries kept at each compression</source>
        <translation>Anteil der neuen Einträge, der bei jeder Komprimierung behalten wird</translation>
    </message>
    <message>
        <source>Compress after (tokens)</source>
        <translation>Komprimieren nach (Token)</translation>
    </message>
    <message>
        <source>New entries that trigger a compression while generating</source>
        <translation>Neue Einträge, die beim Generieren eine Komprimierung auslösen</translation>
    </message>
    <message>
        <source>Enter a whole number.</source>
        <translation>Geben Sie eine ganze Zahl ein.</translation>
    </message>
    <message>
        <source>Enter a number.</source>
        <translation>Geben Sie eine Zahl ein.</translation>
    </message>
    <message>
        <source>Choose one of: %1</source>
        <translation>Wählen Sie eines davon: %1</translation>
    </message>
    <message>
        <source>The reply length limit must be at least 1.</source>
        <translation>Die maximale Antwortlänge muss mindestens 1 sein.</translation>
    </message>
    <message>
        <source>Temperature must not be negative.</source>
        <translation>Die Temperatur darf nicht negativ sein.</translation>
    </message>
    <message>
        <source>Top-k must not be negative.</source>
        <translation>Top-k darf nicht negativ sein.</translation>
    </message>
    <message>
        <source>Top-p must be greater than 0 and at most 1.</source>
        <translation>Top-p muss größer als 0 und höchstens 1 sein.</translation>
    </message>
    <message>
        <source>Min-p must be at least 0 and below 1.</source>
        <translation>Min-p muss mindestens 0 und kleiner als 1 sein.</translation>
    </message>
    <message>
        <source>The repetition penalty must be positive.</source>
        <translation>Die Wiederholungsstrafe muss positiv sein.</translation>
    </message>
    <message>
        <source>The repetition window must not be negative.</source>
        <translation>Das Wiederholungsfenster darf nicht negativ sein.</translation>
    </message>
    <message>
        <source>Interface</source>
        <translation>Oberfläche</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>The language of the app; it changes the next time the app starts</source>
        <translation>Die Sprache der App; sie wechselt beim nächsten Start der App</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>Systemsprache</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Where models run; it changes the next time the app starts</source>
        <translation>Wo Modelle laufen; die Änderung gilt ab dem nächsten Start der App</translation>
    </message>
    <message>
        <source>Automatic (the GPU when one is usable)</source>
        <translation>Automatisch (die GPU, wenn eine nutzbar ist)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>NVIDIA GPU (CUDA)</source>
        <translation>NVIDIA-GPU (CUDA)</translation>
    </message>
    <message>
        <source>Half (fp16)</source>
        <translation>Halb (fp16)</translation>
    </message>
    <message>
        <source>Single (float32)</source>
        <translation>Einfach (float32)</translation>
    </message>
    <message>
        <source>“%1”</source>
        <comment>a setting&apos;s name in a sentence</comment>
        <translation>„%1“</translation>
    </message>
    <message>
        <source>%1 must be at least 0 and below 1.</source>
        <translation>%1 muss mindestens 0 und kleiner als 1 sein.</translation>
    </message>
    <message>
        <source>%1 must be greater than 0 and at most 1.</source>
        <translation>%1 muss größer als 0 und höchstens 1 sein.</translation>
    </message>
    <message>
        <source>%1 must not be negative.</source>
        <translation>%1 darf nicht negativ sein.</translation>
    </message>
    <message>
        <source>%1 must be at least 1.</source>
        <translation>%1 muss mindestens 1 sein.</translation>
    </message>
    <message>
        <source>%1 must be greater than 0.</source>
        <translation>%1 muss größer als 0 sein.</translation>
    </message>
    <message>
        <source>%1 must be at least 0 and at most 1.</source>
        <translation>%1 muss mindestens 0 und höchstens 1 sein.</translation>
    </message>
    <message>
        <source>The turn format the model was trained on: automatic uses the one the open model&apos;s chat template names. No system prompt is added unless you set one</source>
        <translation>Das Rundenformat, mit dem das Modell trainiert wurde: Automatisch verwendet das Format, das die Chatvorlage des geöffneten Modells nennt. Ein Systemprompt wird nur hinzugefügt, wenn Sie einen festlegen</translation>
    </message>
    <message>
        <source>The compression settings cannot be used: %1</source>
        <translation>Die Komprimierungseinstellungen sind nicht verwendbar: %1</translation>
    </message>
    <message>
        <source>Automatic (%1)</source>
        <comment>the prompt format the open model names</comment>
        <translation>Automatisch (%1)</translation>
    </message>
    <message>
        <source>The compression is %1: these settings are not used.</source>
        <translation>Die Komprimierung ist %1: Diese Einstellungen werden nicht verwendet.</translation>
    </message>
    <message>
        <source>The compression is %1: these settings only set its budget, how many entries it may keep (as many as PyramidInfer would); %1 chooses which.</source>
        <translation>Die Komprimierung ist %1: Diese Einstellungen legen nur ihr Budget fest, also wie viele Einträge sie behalten darf (so viele wie PyramidInfer); welche, wählt %1.</translation>
    </message>
    <message>
        <source>pyramid: PyramidInfer; full: no compression; local, h2o, snapkv, pyramidkv: baselines with PyramidInfer&apos;s budget</source>
        <translation>pyramid: PyramidInfer; full: keine Komprimierung; local, h2o, snapkv, pyramidkv: Vergleichsverfahren mit dem Budget von PyramidInfer</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>Design</translation>
    </message>
    <message>
        <source>Light or dark colours, or those of the system; it changes at once</source>
        <translation>Helle oder dunkle Farben oder die des Systems; die Änderung gilt sofort</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>Wie das System</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <source>Share of the cache kept</source>
        <translation>Behaltener Anteil des Caches</translation>
    </message>
    <message>
        <source>For local, h2o, snapkv and pyramidkv: the share of a full cache they keep (0: as much as PyramidInfer keeps)</source>
        <translation>Für local, h2o, snapkv und pyramidkv: der Anteil eines vollen Caches, den sie behalten (0: so viel, wie PyramidInfer behält)</translation>
    </message>
    <message>
        <source>%1, keeps %2% of the cache: %3% perplexity, recalls %4% of what the full cache recalls (measured on SmolLM2-135M-Instruct)</source>
        <translation>%1, behält %2 % des Caches: %3 % Perplexität, erinnert sich an %4 % dessen, woran sich der volle Cache erinnert (gemessen mit SmolLM2-135M-Instruct)</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>Server</translation>
    </message>
    <message>
        <source>Serve this model on localhost</source>
        <translation>Dieses Modell auf localhost bereitstellen</translation>
    </message>
    <message>
        <source>Other programs on this computer (editors, scripts, OpenAI clients) can use the open model over an OpenAI-compatible API; your own replies come first</source>
        <translation>Andere Programme auf diesem Computer (Editoren, Skripte, OpenAI-Clients) können das geöffnete Modell über eine OpenAI-kompatible API nutzen; Ihre eigenen Antworten haben Vorrang</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <source>On</source>
        <translation>An</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>The TCP port on 127.0.0.1 the server listens on</source>
        <translation>Der TCP-Port auf 127.0.0.1, auf dem der Server lauscht</translation>
    </message>
    <message>
        <source>The server port must be between 1 and 65535.</source>
        <translation>Der Server-Port muss zwischen 1 und 65535 liegen.</translation>
    </message>
    <message>
        <source>8-bit (q8, about half of fp16)</source>
        <translation>8 Bit (q8, etwa die Hälfte von fp16)</translation>
    </message>
    <message>
        <source>4-bit (q4, about a quarter of fp16)</source>
        <translation>4 Bit (q4, etwa ein Viertel von fp16)</translation>
    </message>
    <message>
        <source>Values stored as</source>
        <translation>Werte gespeichert als</translation>
    </message>
    <message>
        <source>The values of the cache in another precision than its keys (on SmolLM2 the values carry most of 8-bit&apos;s cost); it changes the next time the app starts</source>
        <translation>Die Werte des Caches in einer anderen Genauigkeit als seine Schlüssel (bei SmolLM2 tragen die Werte den größten Teil der Kosten von 8 Bit); die Änderung gilt ab dem nächsten Start der App</translation>
    </message>
    <message>
        <source>As the keys</source>
        <translation>Wie die Schlüssel</translation>
    </message>
    <message>
        <source>8-bit (q8)</source>
        <translation>8 Bit (q8)</translation>
    </message>
    <message>
        <source>4-bit (q4)</source>
        <translation>4 Bit (q4)</translation>
    </message>
    <message>
        <source>Cache precision</source>
        <translation>Cache-Genauigkeit</translation>
    </message>
    <message>
        <source>How the KV cache is stored: half precision takes half the memory of single precision, 8-bit about a quarter, 4-bit about an eighth; single precision is exact, and a GPU stores half precision in its place (8 and 4 bits need heads of a multiple of 32 values); it changes the next time the app starts</source>
        <translation>Wie der KV-Cache gespeichert wird: halbe Genauigkeit braucht halb so viel Speicher wie einfache, 8 Bit etwa ein Viertel, 4 Bit etwa ein Achtel; einfache Genauigkeit ist exakt, und eine GPU speichert an ihrer Stelle halbe Genauigkeit (8 und 4 Bit brauchen Köpfe mit einem Vielfachen von 32 Werten); die Änderung gilt ab dem nächsten Start der App</translation>
    </message>
    <message>
        <source>%1 must be an odd number, at least 1.</source>
        <translation>%1 muss eine ungerade Zahl und mindestens 1 sein.</translation>
    </message>
    <message>
        <source>Scoring window</source>
        <translation>Bewertungsfenster</translation>
    </message>
    <message>
        <source>Score the prompt by the attention of this many of its last tokens (0: the whole recent window, as in the paper)</source>
        <translation>Den Prompt nach der Aufmerksamkeit so vieler seiner letzten Tokens bewerten (0: das ganze jüngste Fenster, wie im Paper)</translation>
    </message>
    <message>
        <source>Score pooling</source>
        <translation>Bewertung glätten</translation>
    </message>
    <message>
        <source>Average each entry&apos;s score over this many neighbouring entries, so that an entry&apos;s neighbours are kept with it (odd; 1: none, as in the paper)</source>
        <translation>Die Bewertung jedes Eintrags über so viele benachbarte Einträge mitteln, damit die Nachbarn eines Eintrags mit ihm behalten werden (ungerade; 1: keine, wie im Paper)</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU-Threads</translation>
    </message>
    <message>
        <source>How many threads a model on the CPU runs on. Automatic: one per physical core of the fastest kind; a core&apos;s second hardware thread and efficiency cores would slow the others down. It changes the next time the app starts</source>
        <translation>Wie viele Threads ein Modell auf der CPU nutzt. Automatisch: einer pro physischem Kern der schnellsten Art; der zweite Hardware-Thread eines Kerns und Effizienzkerne würden die anderen bremsen. Die Änderung gilt ab dem nächsten Start der App</translation>
    </message>
    <message>
        <source>Automatic (one per performance core)</source>
        <translation>Automatisch (einer pro Leistungskern)</translation>
    </message>
    <message>
        <source>Balanced</source>
        <comment>a compression preset</comment>
        <translation>Ausgewogen</translation>
    </message>
    <message>
        <source>Recall</source>
        <comment>a compression preset: keeps what earlier turns said</comment>
        <translation>Erinnerung</translation>
    </message>
    <message>
        <source>Most memory saved</source>
        <comment>a compression preset</comment>
        <translation>Größte Speicherersparnis</translation>
    </message>
    <message>
        <source>Paper, 7B settings</source>
        <comment>a compression preset: PyramidInfer as its paper ran a 7B model</comment>
        <translation>Paper, 7B-Einstellungen</translation>
    </message>
    <message>
        <source>Paper, 13B settings</source>
        <comment>a compression preset: PyramidInfer as its paper ran a 13B model</comment>
        <translation>Paper, 13B-Einstellungen</translation>
    </message>
    <message>
        <source>%1 (default)</source>
        <comment>the compression preset a chat starts with</comment>
        <translation>%1 (Standard)</translation>
    </message>
    <message>
        <source>Let web pages use it</source>
        <translation>Webseiten erlauben</translation>
    </message>
    <message>
        <source>Browser extensions and web-based chat clients may call the server. Any web page you open could then use the model: leave it off unless such a client needs it</source>
        <translation>Browser-Erweiterungen und webbasierte Chat-Clients dürfen den Server aufrufen. Dann könnte jede Webseite, die Sie öffnen, das Modell nutzen: lassen Sie dies aus, solange kein solcher Client es braucht</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>Nachricht senden</translation>
    </message>
    <message>
        <source>Start a new line</source>
        <translation>Neue Zeile beginnen</translation>
    </message>
    <message>
        <source>Stop the reply; without one, cancel an edit</source>
        <translation>Antwort anhalten; ohne Antwort eine Bearbeitung abbrechen</translation>
    </message>
    <message>
        <source>Read the conversation up or down from the message box</source>
        <translation>Vom Nachrichtenfeld aus in der Unterhaltung nach oben oder unten lesen</translation>
    </message>
    <message>
        <source>Go to the start or end of the message; again, of the conversation</source>
        <translation>Zum Anfang oder Ende der Nachricht; noch einmal: der Unterhaltung</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>Search the conversations</source>
        <translation>Unterhaltungen durchsuchen</translation>
    </message>
    <message>
        <source>Previous or next conversation</source>
        <translation>Vorherige oder nächste Unterhaltung</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>Eine Modelldatei öffnen</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>This list</source>
        <translation>Diese Liste</translation>
    </message>
    <message>
        <source>Quit (a running reply is kept as stopped)</source>
        <translation>Beenden (eine laufende Antwort wird als angehalten behalten)</translation>
    </message>
    <message>
        <source>Enter or Ctrl+Enter</source>
        <comment>keys</comment>
        <translation>Eingabe oder Strg+Eingabe</translation>
    </message>
    <message>
        <source>Shift+Enter</source>
        <comment>keys</comment>
        <translation>Umschalt+Eingabe</translation>
    </message>
    <message>
        <source>Esc</source>
        <comment>keys</comment>
        <translation>Esc</translation>
    </message>
    <message>
        <source>PgUp or PgDown</source>
        <comment>keys</comment>
        <translation>Bild↑ oder Bild↓</translation>
    </message>
    <message>
        <source>Ctrl+Home or Ctrl+End</source>
        <comment>keys</comment>
        <translation>Strg+Pos1 oder Strg+Ende</translation>
    </message>
    <message>
        <source>Ctrl+N</source>
        <comment>keys</comment>
        <translation>Strg+N</translation>
    </message>
    <message>
        <source>Ctrl+F</source>
        <comment>keys</comment>
        <translation>Strg+F</translation>
    </message>
    <message>
        <source>Ctrl+PgUp or Ctrl+PgDown</source>
        <comment>keys</comment>
        <translation>Strg+Bild↑ oder Strg+Bild↓</translation>
    </message>
    <message>
        <source>Ctrl+O</source>
        <comment>keys</comment>
        <translation>Strg+O</translation>
    </message>
    <message>
        <source>Ctrl+,</source>
        <comment>keys</comment>
        <translation>Strg+,</translation>
    </message>
    <message>
        <source>F1</source>
        <comment>keys</comment>
        <translation>F1</translation>
    </message>
    <message>
        <source>Ctrl+Q</source>
        <comment>keys</comment>
        <translation>Strg+Q</translation>
    </message>
</context>
<context>
    <name>SingleInstance</name>
    <message>
        <source>Another PyramidChat (process %1 on %2) is using this user&apos;s conversations but does not answer. If it is not running any more, delete %3 and start PyramidChat again.</source>
        <translation>Ein anderes PyramidChat (Prozess %1 auf %2) verwendet die Unterhaltungen dieses Benutzers, antwortet aber nicht. Falls es nicht mehr läuft, löschen Sie %3 und starten Sie PyramidChat erneut.</translation>
    </message>
</context>
<context>
    <name>StoreProblem</name>
    <message>
        <source>PyramidChat — the conversations cannot be opened</source>
        <translation>PyramidChat – die Unterhaltungen lassen sich nicht öffnen</translation>
    </message>
    <message>
        <source>PyramidChat cannot open the file that holds your conversations.</source>
        <translation>PyramidChat kann die Datei mit Ihren Unterhaltungen nicht öffnen.</translation>
    </message>
    <message>
        <source>You can quit and keep the file as it is (to copy it somewhere safe, or to open it with a newer PyramidChat), or set it aside and start with no conversations. Setting it aside only renames the file, in %1; nothing is deleted.</source>
        <translation>Sie können beenden und die Datei unverändert lassen (um sie an einen sicheren Ort zu kopieren oder mit einem neueren PyramidChat zu öffnen), oder sie beiseitelegen und ohne Unterhaltungen beginnen. Beiseitelegen benennt die Datei in %1 nur um; nichts wird gelöscht.</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>Set it aside and start fresh</source>
        <translation>Beiseitelegen und neu beginnen</translation>
    </message>
</context>
<context>
    <name>StoreRecovery</name>
    <message>
        <source>Could not rename %1 to %2: %3</source>
        <translation>%1 konnte nicht in %2 umbenannt werden: %3</translation>
    </message>
    <message>
        <source>the name is taken</source>
        <translation>der Name ist schon vergeben</translation>
    </message>
    <message>
        <source>There is no file to set aside at %1.</source>
        <translation>Unter %1 gibt es keine Datei zum Beiseitelegen.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Open this GGUF file or Hugging Face folder.</source>
        <translation>Diese GGUF-Datei oder diesen Hugging-Face-Ordner öffnen.</translation>
    </message>
    <message>
        <source>path</source>
        <translation>Pfad</translation>
    </message>
    <message>
        <source>Chat with LLaMA-family models on this machine, with PyramidInfer KV-cache compression.</source>
        <translation>Mit Modellen der LLaMA-Familie auf diesem Rechner chatten, mit KV-Cache-Komprimierung durch PyramidInfer.</translation>
    </message>
</context>
</TS>
