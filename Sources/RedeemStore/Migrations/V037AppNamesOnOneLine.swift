extension Migration {
    /// App names from before the one-line rule lose their line breaks and tabs (each becomes a space): a name goes in
    /// the app's e-mail subjects and sender, where a line break is refused, so such an app's e-mails could not be sent.
    /// The control characters are written into the SQL literals, which both engines read as they are.
    static let v037AppNamesOnOneLine = Migration(
        37, "app names on one line",
        [
            """
            UPDATE apps SET name = TRIM(REPLACE(REPLACE(REPLACE(REPLACE(name, '\r\n', ' '), '\n', ' '), '\r', ' '), '\t', ' '))
            WHERE name LIKE '%\n%' OR name LIKE '%\r%' OR name LIKE '%\t%'
            """
        ])
}
