package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * The docs ({@code README.md} and every {@code *.md} under {@code docs/}) stay navigable and their commands stay true.
 * <ul>
 * <li>Every relative link points at a file that exists, and every {@code #anchor} at a heading of the target Markdown
 * file, by GitHub's rules: pages are split and renamed, and a dead link is found here, not by a reader.</li>
 * <li>Every command the docs mark as runnable is one the CLI accepts: flags get renamed, and a copy-pasted command that
 * fails is the first thing a newcomer meets. The convention (also in docs/contributing/testing.md): in a fenced code
 * block whose info string is {@code sh}, a line (backslash continuations joined) that starts with
 * {@code java -jar cli/target/nightshift.jar } or {@code nightshift } is runnable. A synopsis with placeholders
 * ({@code [--http-port 9400]}, {@code DIR}) belongs in a {@code text} block instead.</li>
 * </ul>
 * Failures are collected and reported together, each with its file and line, so one run shows everything to fix.
 */
class DocsTest {

    private static final Path ROOT = repositoryRoot();

    /** {@code [text](target)} or {@code [text](target "title")}; images ({@code ![alt](path)}) match too, on purpose. */
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern EXTERNAL = Pattern.compile("^(https?:|mailto:).*", Pattern.CASE_INSENSITIVE);
    private static final List<String> RUNNABLE_PREFIXES = List.of("java -jar cli/target/nightshift.jar ", "nightshift ");

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> failures = new ArrayList<>();
        Map<Path, Set<String>> anchorsByFile = new HashMap<>();
        for (Path file : markdownFiles()) {
            for (Line line : proseLines(file)) {
                // A link shown as code (`[x](y)`) is an example, not a link.
                Matcher link = LINK.matcher(INLINE_CODE.matcher(line.text()).replaceAll(""));
                while (link.find()) {
                    String target = link.group(1);
                    if (EXTERNAL.matcher(target).matches()) {
                        continue;
                    }
                    int hash = target.indexOf('#');
                    String path = hash < 0 ? target : target.substring(0, hash);
                    String anchor = hash < 0 ? null : target.substring(hash + 1);
                    // GitHub resolves "/x" from the repository's root, anything else from the linking file's folder.
                    Path dest = path.isEmpty() ? file
                            : (path.startsWith("/") ? ROOT.resolve(path.substring(1)) : file.getParent().resolve(path)).normalize();
                    if (!Files.exists(dest)) {
                        failures.add(line.where() + ": " + target + ": no such file");
                    } else if (anchor != null && dest.toString().endsWith(".md")
                            && !anchorsByFile.computeIfAbsent(dest, DocsTest::anchors).contains(anchor)) {
                        failures.add(line.where() + ": " + target + ": no heading makes the anchor #" + anchor);
                    }
                }
            }
        }
        assertThat(failures).withFailMessage("%d broken link(s):%n%s", failures.size(), String.join("\n", failures)).isEmpty();
    }

    @Test
    void everyRunnableCommandIsOneTheCliAccepts() {
        List<Line> commands = markdownFiles().stream().flatMap(file -> runnableCommands(file).stream()).toList();
        List<String> failures = new ArrayList<>();
        for (Line command : commands) {
            String[] args = shellWords(command.text()).toArray(String[]::new);
            CommandLine cli = Main.commandLine(); // a fresh one each time: parseArgs keeps what it parsed
            if (args.length > 0 && !args[0].startsWith("-") && !cli.getSubcommands().containsKey(args[0])) {
                // demo and sandbox come from the sandbox plug-in (ServiceLoader): without it on the class path they are unknown.
                failures.add(command.where() + ": nightshift " + String.join(" ", args) + ": no subcommand " + args[0]
                        + " (the CLI has " + cli.getSubcommands().keySet() + ")");
                continue;
            }
            try {
                // parseArgs parses and converts every value without calling the command: nothing starts, nothing is read.
                cli.parseArgs(args);
            } catch (CommandLine.PicocliException e) {
                failures.add(command.where() + ": nightshift " + String.join(" ", args) + ": " + e.getMessage());
            }
        }
        // Without this the test would pass on docs that mark nothing as runnable (say, after an info string changed).
        if (commands.size() < 10) {
            failures.add("only " + commands.size() + " runnable command(s) found in the docs; expected at least 10");
        }
        assertThat(failures).withFailMessage("%d problem(s) with documented commands:%n%s", failures.size(), String.join("\n", failures))
                .isEmpty();
    }

    /** A line of a Markdown file, with where it is for the failure message. */
    record Line(Path file, int number, String text) {
        String where() {
            return ROOT.relativize(file) + ":" + number;
        }
    }

    /** Maven runs the tests in the module's folder ({@code cli/}); the root is the first folder up with docs and modules. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            if (Files.isDirectory(dir.resolve("docs")) && Files.isRegularFile(pom) && read(pom).contains("<modules>")) {
                return dir;
            }
        }
        throw new IllegalStateException("no folder above " + Path.of("").toAbsolutePath() + " holds docs/ and a pom.xml with <modules>");
    }

    private static List<Path> markdownFiles() {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The lines outside fenced code blocks: links and headings there are text, not Markdown. */
    private static List<Line> proseLines(Path file) {
        List<Line> lines = new ArrayList<>();
        boolean fenced = false;
        List<String> all = read(file).lines().toList();
        for (int i = 0; i < all.size(); i++) {
            String text = all.get(i);
            if (text.stripLeading().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                lines.add(new Line(file, i + 1, text));
            }
        }
        return lines;
    }

    /**
     * The anchors GitHub makes for a file's headings: lower case; every character but letters, digits, spaces, hyphens
     * and underscores removed; spaces become hyphens; the second heading with the same slug gets "-1", the third "-2".
     */
    private static Set<String> anchors(Path file) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (Line line : proseLines(file)) {
            Matcher heading = HEADING.matcher(line.text());
            if (heading.matches()) {
                String text = heading.group(1).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link's text only
                String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return anchors;
    }

    /** The arguments of every runnable command of a file (see the class comment), where each starts. */
    private static List<Line> runnableCommands(Path file) {
        List<Line> commands = new ArrayList<>();
        List<String> all = read(file).lines().toList();
        String info = null; // the open fence's info string, null outside a fence
        StringBuilder joined = new StringBuilder();
        int start = 0;
        for (int i = 0; i < all.size(); i++) {
            String text = all.get(i);
            if (text.stripLeading().startsWith("```")) {
                info = info == null ? text.strip().substring(3).strip() : null;
                continue;
            }
            if (!"sh".equals(info)) {
                continue;
            }
            if (joined.isEmpty()) {
                start = i + 1;
            }
            if (text.endsWith("\\")) {
                joined.append(text, 0, text.length() - 1).append(' ');
                continue;
            }
            String command = joined.append(text).toString().strip();
            joined.setLength(0);
            for (String prefix : RUNNABLE_PREFIXES) {
                if (command.startsWith(prefix)) {
                    commands.add(new Line(file, start, command.substring(prefix.length())));
                }
            }
        }
        return commands;
    }

    /**
     * Splits a command's arguments as a shell would: quotes ('…', "…") and backslashes respected, and everything from
     * the first unquoted operator ({@code |}, {@code &&}, {@code &}, {@code ;}, {@code >}, {@code 2>}, {@code <}) or
     * comment ({@code #} starting a word) on left out, since that is no longer the command's.
     */
    static List<String> shellWords(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                end = end < 0 ? line.length() : end;
                word.append(line, i + 1, end);
                i = end;
                inWord = true;
            } else if (c == '"') {
                int j = i + 1;
                for (; j < line.length() && line.charAt(j) != '"'; j++) {
                    char d = line.charAt(j);
                    if (d == '\\' && j + 1 < line.length() && "\"\\$`".indexOf(line.charAt(j + 1)) >= 0) {
                        d = line.charAt(++j);
                    }
                    word.append(d);
                }
                i = j;
                inWord = true;
            } else if (c == '\\' && i + 1 < line.length()) {
                word.append(line.charAt(++i));
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                }
                word.setLength(0);
                inWord = false;
            } else if ("|&;<>".indexOf(c) >= 0 || (c == '#' && !inWord)) {
                // "2>" and "&>": a file descriptor's digits belong to the redirection, not to the arguments.
                if (inWord && !word.toString().chars().allMatch(Character::isDigit)) {
                    words.add(word.toString());
                }
                return words;
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
