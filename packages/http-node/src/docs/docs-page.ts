// Served by the service itself, so the page works under a strict Content-Security-Policy; URLs are relative, for any base path.
export const DOCS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Plant Store API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<noscript>This page needs JavaScript. The API description it renders is <a href="openapi.json">openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/docs-init.js"></script>
</body>
</html>
`;

export const DOCS_INIT_SCRIPT = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    // Relative to the page, so a base path is followed.
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // The default sends the document to an online validator and shows its badge.
    validatorUrl: null,
    // A ?url= or ?configUrl= must not point the page at another document.
    queryConfigEnabled: false,
    // The bearer token stays in the page's memory, never in localStorage.
    persistAuthorization: false,
    displayRequestDuration: true,
    // Operation ids are the names generated clients use.
    displayOperationId: true,
  });
});
`;
