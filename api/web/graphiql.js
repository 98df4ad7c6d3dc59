// GraphiQL at GET /graphql with the explorer plugin, every script served by this service (the same
// versions strawberry's page loads from a CDN). The query, its variables and headers live in the
// URL and in GraphiQL's local storage; send an API key as {"Authorization": "Bearer <key>"} in
// the headers tab.
"use strict";

(() => {
  const EXAMPLE = `# Recollect's GraphQL API. Ctrl-Enter runs the query; Ctrl-Space completes.
# With RECOLLECT_API_KEYS set, add {"Authorization": "Bearer <key>"} under Headers.
query {
  users
}
`;
  const parameters = Object.fromEntries(new URLSearchParams(location.search));

  function updateURL(data) {
    Object.assign(parameters, data);
    const kept = Object.entries(parameters).filter(([, value]) => Boolean(value));
    history.replaceState(null, "", `?${new URLSearchParams(kept)}`);
  }

  const fetcher = GraphiQL.createFetcher({ url: location.href.split("?")[0] });

  function App() {
    const [query, setQuery] = React.useState(parameters.q || EXAMPLE);
    const [variables, setVariables] = React.useState(parameters.variables);
    const explorer = React.useMemo(() => GraphiQLPluginExplorer.explorerPlugin(), []);
    return React.createElement(GraphiQL, {
      fetcher,
      defaultEditorToolsVisibility: true,
      plugins: [explorer],
      query,
      variables,
      onEditQuery: (text) => { setQuery(text); updateURL({ q: text }); },
      onEditVariables: (text) => { setVariables(text); updateURL({ variables: text }); },
      inputValueDeprecation: true,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
    });
  }

  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(App));
})();
