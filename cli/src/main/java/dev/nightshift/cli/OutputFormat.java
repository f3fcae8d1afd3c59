package dev.nightshift.cli;

/** What the commands print: a table for people, JSON for tools. */
enum OutputFormat {
    text, json
}
