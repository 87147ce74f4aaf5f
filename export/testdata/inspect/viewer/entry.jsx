import React from "react";
import { createRoot } from "react-dom/client";
import { App, clientApi, simpleHttpApi, initializeStore } from "@metrevals/inspect-log-viewer";
import "@metrevals/inspect-log-viewer/styles/index.css";

const params = new URLSearchParams(window.location.search);
const api = clientApi(simpleHttpApi(params.get("log_dir") || undefined, params.get("log_file") || undefined));
initializeStore(api, { downloadFiles: false, webWorkers: false, streamSamples: false, streamSampleData: false, nativeFind: false }, undefined);
createRoot(document.getElementById("app")).render(React.createElement(App, { api }));
