package dev.nightshift.agent.git;

import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.util.RawParseUtils;

/** What a commit's signature is over: the raw commit without its {@code gpgsig} header, as git signs it. */
final class SignedCommits {

    private static final byte[] GPGSIG = {'g', 'p', 'g', 's', 'i', 'g'};

    private SignedCommits() {
    }

    /** The signed bytes; the raw commit itself when it has no signature header. */
    static byte[] payload(RevCommit commit) {
        byte[] raw = commit.getRawBuffer();
        int start = RawParseUtils.headerStart(GPGSIG, raw, 0);
        if (start < 0) {
            return raw;
        }
        // The header's continuation lines start with a space: the header ends at the first LF not followed by one.
        int end = RawParseUtils.nextLfSkippingSplitLines(raw, start);
        start -= GPGSIG.length + 1;
        if (end < raw.length) {
            end++;
        }
        byte[] data = new byte[raw.length - (end - start)];
        System.arraycopy(raw, 0, data, 0, start);
        System.arraycopy(raw, end, data, start, raw.length - end);
        return data;
    }
}
