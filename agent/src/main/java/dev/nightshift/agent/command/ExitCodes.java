package dev.nightshift.agent.command;

/**
 * The exit codes every {@code nightshift} command shares, plug-ins' commands too: scripts tell apart only 0, 2 and 3
 * ({@code diff}'s "changes found"), so usage errors exit 2 like invalid input.
 */
public final class ExitCodes {

    /** A usage error or invalid input. */
    public static final int USAGE = 2;

    private ExitCodes() {
    }
}
