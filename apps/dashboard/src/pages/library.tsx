import { Page } from "../ui.tsx";

export function Library() {
  return (
    <Page title="Library">
      <p>The search of the transcripts this account has fetched comes with the library operations.</p>
    </Page>
  );
}
