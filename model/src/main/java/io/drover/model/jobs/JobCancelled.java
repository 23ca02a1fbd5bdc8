package io.drover.model.jobs;

/**
 * What a cancel did: how many agents were still working on the job and were sent {@code saltutil.kill_job} (as job
 * {@code killJid}, null when none was), and how many had finished already and were left as they were.
 */
public record JobCancelled(String jid, int cancelled, int finished, String killJid) {
}
