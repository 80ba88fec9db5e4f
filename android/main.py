"""Entry point inside the APK (python-for-android runs main.py): the table app on the phone's camera.

Journals go to the app's private data folder (Kivy's ``user_data_dir``). The camera permission is asked
at run time and answered asynchronously: the app shows the demo until the family allows the camera, then
opens it (:class:`companion.app.permission.CameraPermission`); refused, the demo and manual entry go on, and
set-up's "Open the camera" asks again.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("KIVY_NO_ARGS", "1")


def run() -> None:
    from kivy.utils import platform

    from companion.app.permission import CameraPermission

    data = None
    if platform == "android":
        from android.storage import app_storage_path  # p4a module

        data = os.path.join(app_storage_path(), "companion")
    from companion.app.main import CompanionApp

    CompanionApp(source="auto", data_dir=data, camera_permission=CameraPermission.for_platform()).run()


if __name__ == "__main__":
    run()
