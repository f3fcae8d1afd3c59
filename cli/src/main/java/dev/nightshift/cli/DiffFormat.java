package dev.nightshift.cli;

/** What {@code nightshift diff} prints: a table for people, JSON for tools, Markdown for a pull-request comment. */
enum DiffFormat {
    text, json, markdown
}
