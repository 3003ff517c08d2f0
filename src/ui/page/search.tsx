// The page's search box and its results: full-text search of every checkpoint (the `search`
// operation, through /api/search), each hit naming its session and checkpoint, where in it,
// and a snippet with the matches marked; clicking a hit opens that checkpoint.
import { useState } from "preact/hooks";
import { api, type SearchHit, type SearchResult } from "./api.js";
import { ago } from "./timeline.js";

/** The header's search form: a query and an order. */
export function SearchBox(props: { onResult: (r: SearchResult) => void; onError: (e: unknown) => void }) {
  const [query, setQuery] = useState("");
  const [order, setOrder] = useState("relevance");
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!query.trim()) return;
    try {
      props.onResult(await api.search(query.trim(), order));
    } catch (err) {
      props.onError(err);
    }
  };
  return (
    <form class="search-box" aria-label="search" onSubmit={submit}>
      <input
        type="search"
        aria-label="search history"
        placeholder='Search history: words, "a phrase"'
        value={query}
        onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
      />
      <select aria-label="order" value={order} onChange={(e) => setOrder((e.target as HTMLSelectElement).value)}>
        <option value="relevance">best match</option>
        <option value="first">first appearance</option>
        <option value="last">last appearance</option>
      </select>
      <button type="submit">Search</button>
    </form>
  );
}

/** The hits of a search; a click on one opens its checkpoint. */
export function SearchResults(props: { result: SearchResult; onOpen: (hit: SearchHit) => void; onClose: () => void }) {
  const { result } = props;
  return (
    <section class="search-results" aria-label="search results">
      <div class="col-head">
        <h2>
          {result.results.length === 0 ? "No matches" : `${result.results.length} match${result.results.length === 1 ? "" : "es"}`} for “{result.query}”
        </h2>
        <button type="button" class="link" onClick={props.onClose}>
          close
        </button>
      </div>
      <ul>
        {result.results.map((hit) => (
          <li key={`${hit.checkpoint.id} ${hit.where}`}>
            <button type="button" class="hit" onClick={() => props.onOpen(hit)}>
              <span class="hit-head">
                <strong>{hit.checkpoint.session}</strong> #{hit.checkpoint.seq} <span class="badge small">{hit.kind}</span>{" "}
                <code class="where">{hit.where}</code> <span class="muted small">{ago(hit.checkpoint.time)}</span>
              </span>
              <span class="snippet">{marked(hit.snippet, hit.highlights)}</span>
              <span class="muted small">{hit.first.id === hit.last.id ? `only in #${hit.first.seq}` : `from #${hit.first.seq} to #${hit.last.seq}`}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The snippet with its matches in <mark> (text nodes only: nothing of the store becomes markup). */
function marked(text: string, ranges: readonly (readonly [number, number])[]) {
  const out = [];
  let at = 0;
  for (const [a, b] of ranges) {
    if (a < at) continue;
    out.push(text.slice(at, a), <mark>{text.slice(a, b)}</mark>);
    at = b;
  }
  out.push(text.slice(at));
  return out;
}
