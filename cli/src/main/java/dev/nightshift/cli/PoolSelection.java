package dev.nightshift.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The pool a command acts on, named as {@code kubectl rollout} names its object ({@code nightshift resume web}) or with
 * {@code --pool web}, the first form, kept so that scripts written for it go on working. Both may be given when they
 * agree; two different pools are a usage error (exit 2) before anything is read or written.
 */
final class PoolSelection {

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;
    @Parameters(index = "0", arity = "0..1", paramLabel = "POOL", description = "The pool.")
    private String positional;
    @Option(names = "--pool", paramLabel = "NAME", description = "The pool, as POOL.")
    private String option;

    /** The pool named; a {@link ParameterException} when none is, or two different ones are. */
    String pool() {
        if (positional != null && option != null && !positional.equals(option)) {
            throw new ParameterException(command.commandLine(), "Two different pools given: POOL " + positional + " and --pool "
                    + option + "; give one");
        }
        if (positional == null && option == null) {
            throw new ParameterException(command.commandLine(), "Missing the pool: give POOL (or --pool NAME)");
        }
        return positional != null ? positional : option;
    }
}
