package dev.nightshift.agent.git;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.nightshift.spec.load.SpecError;

/** Remembers what a poller handed on and reported. */
final class RecordingListener implements SpecListener {

    final List<SpecRevision> specs = new CopyOnWriteArrayList<>();
    final List<List<SpecError>> invalid = new CopyOnWriteArrayList<>();
    final List<String> invalidCommits = new CopyOnWriteArrayList<>();
    final List<GitSourceException> failures = new CopyOnWriteArrayList<>();

    @Override
    public void onSpec(SpecRevision revision) {
        specs.add(revision);
    }

    @Override
    public void onInvalidSpec(String commit, List<SpecError> errors) {
        invalidCommits.add(commit);
        invalid.add(errors);
    }

    @Override
    public void onPollFailed(GitSourceException error) {
        failures.add(error);
    }
}
