package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code nightshift --help}: the command list shows each command's first description line, so that line must say it all. */
class MainHelpTest {

    @Test
    void theCommandListShowsEveryCommandsDescriptionAsWholeSentences() {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));

        assertThat(cli.execute("--help")).isZero();

        List<String> entries = commandEntries(out.toString());
        assertThat(entries).as("one entry per command").hasSize(cli.getSubcommands().size());
        assertThat(entries).allSatisfy(e -> assertThat(e).as("a command's entry in --help").endsWith("."));
    }

    @Test
    void everyCommandsFirstDescriptionLineIsASentenceOfItsOwn() {
        Main.commandLine().getSubcommands().forEach((name, sub) -> {
            String[] description = sub.getCommandSpec().usageMessage().description();
            assertThat(description).as("%s has a description", name).isNotEmpty();
            assertThat(description[0]).as("%s's first description line", name).endsWith(".");
            if (description.length > 1) {
                assertThat(description[1]).as("%s's second line starts a new sentence", name).matches("^[^a-z].*");
            }
        });
    }

    /** The text of each command under "Commands:", its wrapped lines joined. */
    private static List<String> commandEntries(String help) {
        List<String> entries = new ArrayList<>();
        boolean inCommands = false;
        for (String line : help.lines().toList()) {
            if (line.equals("Commands:")) {
                inCommands = true;
            } else if (inCommands && line.matches("^ {2}\\S.*")) {
                entries.add(line.strip().replaceFirst("^\\S+\\s+", ""));
            } else if (inCommands && line.matches("^ {3,}\\S.*")) {
                entries.set(entries.size() - 1, entries.get(entries.size() - 1) + " " + line.strip());
            } else if (inCommands) {
                inCommands = false;
            }
        }
        return entries;
    }
}
