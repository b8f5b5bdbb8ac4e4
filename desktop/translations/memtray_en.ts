<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>Chat</name>
    <message numerus="yes">
        <source>%Ln recent message(s) of {session}.</source>
        <translation>
            <numerusform>%Ln recent message of {session}.</numerusform>
            <numerusform>%Ln recent messages of {session}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Saved, %n memory lookup(s).</source>
        <translation>
            <numerusform>Saved, %n memory lookup.</numerusform>
            <numerusform>Saved, %n memory lookups.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Chooser</name>
    <message numerus="yes">
        <source>Reset deletes the %Ln message(s) of “{session}”, after you confirm.</source>
        <translation>
            <numerusform>Reset deletes the %Ln message of “{session}”, after you confirm.</numerusform>
            <numerusform>Reset deletes the %Ln messages of “{session}”, after you confirm.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Compact all (%n)</source>
        <translation>
            <numerusform>Compact all (%n)</numerusform>
            <numerusform>Compact all (%n)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Compact the %n session(s) larger than {target}</source>
        <translation>
            <numerusform>Compact the %n session larger than {target}</numerusform>
            <numerusform>Compact the %n sessions larger than {target}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Conversation</name>
    <message numerus="yes">
        <source>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent message(s) · compacted</source>
        <translation>
            <numerusform>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent message · compacted</numerusform>
            <numerusform>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent messages · compacted</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent message(s)</source>
        <translation>
            <numerusform>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent message</numerusform>
            <numerusform>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent messages</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Editing</name>
    <message numerus="yes">
        <source>This deletes the whole session: its %Ln message(s) (the recent history and the archive, with their search index), its summary and its folder. The error memory is kept (it is shared by all sessions). This cannot be undone.</source>
        <translation>
            <numerusform>This deletes the whole session: its %Ln message (the recent history and the archive, with their search index), its summary and its folder. The error memory is kept (it is shared by all sessions). This cannot be undone.</numerusform>
            <numerusform>This deletes the whole session: its %Ln messages (the recent history and the archive, with their search index), its summary and its folder. The error memory is kept (it is shared by all sessions). This cannot be undone.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) deleted with the session; the error memory was kept.</source>
        <translation>
            <numerusform>%Ln message deleted with the session; the error memory was kept.</numerusform>
            <numerusform>%Ln messages deleted with the session; the error memory was kept.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ErrorMemory</name>
    <message numerus="yes">
        <source>%n day(s)</source>
        <translation>
            <numerusform>%n day</numerusform>
            <numerusform>%n days</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Tool errors and their fixes, shared by every session; a record is kept %n day(s) after its last use</source>
        <translation>
            <numerusform>Tool errors and their fixes, shared by every session; a record is kept %n day after its last use</numerusform>
            <numerusform>Tool errors and their fixes, shared by every session; a record is kept %n days after its last use</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n record(s) found</source>
        <translation>
            <numerusform>%n record found</numerusform>
            <numerusform>%n records found</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The newest %n record(s) of {total}</source>
        <translation>
            <numerusform>The newest %n record of {total}</numerusform>
            <numerusform>The newest %n records of {total}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n record(s)</source>
        <translation>
            <numerusform>%n record</numerusform>
            <numerusform>%n records</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Import</name>
    <message numerus="yes">
        <source>%Ln conversation(s)</source>
        <translation>
            <numerusform>%Ln conversation</numerusform>
            <numerusform>%Ln conversations</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) added</source>
        <translation>
            <numerusform>%Ln message added</numerusform>
            <numerusform>%Ln messages added</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> %Ln transcript(s) had nothing new since the last import.</source>
        <translation>
            <numerusform> %Ln transcript had nothing new since the last import.</numerusform>
            <numerusform> %Ln transcripts had nothing new since the last import.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Operations</name>
    <message numerus="yes">
        <source>%Ln message(s) deleted (a private chat is not archived), {kept} kept; recent history {before} → {after} in {took}.</source>
        <translation>
            <numerusform>%Ln message deleted (a private chat is not archived), {kept} kept; recent history {before} → {after} in {took}.</numerusform>
            <numerusform>%Ln messages deleted (a private chat is not archived), {kept} kept; recent history {before} → {after} in {took}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) moved to the archive, {kept} kept; recent history {before} → {after} in {took}.</source>
        <translation>
            <numerusform>%Ln message moved to the archive, {kept} kept; recent history {before} → {after} in {took}.</numerusform>
            <numerusform>%Ln messages moved to the archive, {kept} kept; recent history {before} → {after} in {took}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The recent history of all %n session(s) is not more than {target} (the limit is {limit}) ({took}).</source>
        <translation>
            <numerusform>The recent history of the %n session is not more than {target} (the limit is {limit}) ({took}).</numerusform>
            <numerusform>The recent history of all %n sessions is not more than {target} (the limit is {limit}) ({took}).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Compacted %n session(s)</source>
        <translation>
            <numerusform>Compacted %n session</numerusform>
            <numerusform>Compacted %n sessions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) trimmed from the recent history in {took}.</source>
        <translation>
            <numerusform>%Ln message trimmed from the recent history in {took}.</numerusform>
            <numerusform>%Ln messages trimmed from the recent history in {took}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) trimmed from the recent history in {took}; {others} left as they were.</source>
        <translation>
            <numerusform>%Ln message trimmed from the recent history in {took}; {others} left as they were.</numerusform>
            <numerusform>%Ln messages trimmed from the recent history in {took}; {others} left as they were.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n other session(s)</source>
        <translation>
            <numerusform>%n other session</numerusform>
            <numerusform>%n other sessions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) deleted; summary and error memory kept ({took}).</source>
        <translation>
            <numerusform>%Ln message deleted; summary and error memory kept ({took}).</numerusform>
            <numerusform>%Ln messages deleted; summary and error memory kept ({took}).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) deleted; error memory kept ({took}).</source>
        <translation>
            <numerusform>%Ln message deleted; error memory kept ({took}).</numerusform>
            <numerusform>%Ln messages deleted; error memory kept ({took}).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln new message(s) were small talk; the summary is unchanged</source>
        <translation>
            <numerusform>%Ln new message was small talk; the summary is unchanged</numerusform>
            <numerusform>%Ln new messages were small talk; the summary is unchanged</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln new message(s) merged into the summary ({parts})</source>
        <translation>
            <numerusform>%Ln new message merged into the summary ({parts})</numerusform>
            <numerusform>%Ln new messages merged into the summary ({parts})</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n part(s)</source>
        <translation>
            <numerusform>%n part</numerusform>
            <numerusform>%n parts</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n session(s) summarized in {took}.</source>
        <translation>
            <numerusform>%n session summarized in {took}.</numerusform>
            <numerusform>%n sessions summarized in {took}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln byte(s)</source>
        <translation>
            <numerusform>%Ln byte</numerusform>
            <numerusform>%Ln bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>This deletes its %Ln message(s): the recent history and the archive, with their search index.</source>
        <translation>
            <numerusform>This deletes its %Ln message: the recent history and the archive, with their search index.</numerusform>
            <numerusform>This deletes its %Ln messages: the recent history and the archive, with their search index.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Repair</name>
    <message numerus="yes">
        <source>%Ln message(s) were read back from it.</source>
        <translation>
            <numerusform>%Ln message was read back from it.</numerusform>
            <numerusform>%Ln messages were read back from it.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln more were restored from the sessions&apos; history files.</source>
        <translation>
            <numerusform>%Ln more was restored from the sessions&apos; history files.</numerusform>
            <numerusform>%Ln more were restored from the sessions&apos; history files.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Search</name>
    <message numerus="yes">
        <source>{shown} of %n+ results</source>
        <translation>
            <numerusform>{shown} of %n+ results</numerusform>
            <numerusform>{shown} of %n+ results</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The first %n results (more words narrow the search)</source>
        <translation>
            <numerusform>The first %n results (more words narrow the search)</numerusform>
            <numerusform>The first %n results (more words narrow the search)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{shown} of %n result(s)</source>
        <translation>
            <numerusform>{shown} of %n result</numerusform>
            <numerusform>{shown} of %n results</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n result(s)</source>
        <translation>
            <numerusform>%n result</numerusform>
            <numerusform>%n results</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message numerus="yes">
        <source>Summarize conversations on a schedule (every %n minute(s))</source>
        <translation>
            <numerusform>Summarize conversations on a schedule (every minute)</numerusform>
            <numerusform>Summarize conversations on a schedule (every %n minutes)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> (%Ln message(s) waiting to be embedded)</source>
        <translation>
            <numerusform> (%Ln message waiting to be embedded)</numerusform>
            <numerusform> (%Ln messages waiting to be embedded)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message numerus="yes">
        <source>about %n min</source>
        <translation>
            <numerusform>about %n min</numerusform>
            <numerusform>about %n min</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n h</source>
        <translation>
            <numerusform>about %n h</numerusform>
            <numerusform>about %n h</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Embedding paused: %Ln message(s) waiting</source>
        <translation>
            <numerusform>Embedding paused: %Ln message waiting</numerusform>
            <numerusform>Embedding paused: %Ln messages waiting</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Rebuilding the search index of %Ln session(s)…</source>
        <translation>
            <numerusform>Rebuilding the search index of %Ln session…</numerusform>
            <numerusform>Rebuilding the search index of %Ln sessions…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Time</name>
    <message numerus="yes">
        <source>%n min ago</source>
        <translation>
            <numerusform>%n min ago</numerusform>
            <numerusform>%n min ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n h ago</source>
        <translation>
            <numerusform>%n h ago</numerusform>
            <numerusform>%n h ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation>
            <numerusform>%n day ago</numerusform>
            <numerusform>%n days ago</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message numerus="yes">
        <source>memtray — %Ln session(s)</source>
        <translation>
            <numerusform>memtray — %Ln session</numerusform>
            <numerusform>memtray — %Ln sessions</numerusform>
        </translation>
    </message>
</context>
</TS>
